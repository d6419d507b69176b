"""Run one command and report its wall time, peak RSS and CPU time: ``wrap.py FD ARGV...``.

A stage of ``harness.run_once``, started as ``python -S -E wrap.py FD ARGV...``. It forks, the
child execs ARGV, and the wrapper reaps it with ``os.wait4``, whose ``ru_maxrss`` is the
reaped child's own peak RSS in KiB on Linux. It writes ``SECONDS MAXRSS_KIB EXITCODE
CPU_SECONDS`` to the file descriptor FD (CPU: the child's user and system time, with those of
the children it reaped itself). It imports nothing beyond ``os``, ``sys`` and ``time`` and
starts without ``site``, so the RSS it passes to the child (see ``harness.run_once``) stays
a few MB.
"""

import os
import sys
import time


def main() -> None:
    fd, argv = int(sys.argv[1]), sys.argv[2:]
    os.set_inheritable(fd, False)  # the measured command must not hold the report pipe open
    start = time.perf_counter()
    pid = os.fork()
    if pid == 0:
        try:
            os.execvp(argv[0], argv)
        except OSError as exc:
            os.write(2, f"wrap.py: cannot run {argv[0]}: {exc}\n".encode())
            os._exit(127)
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    os.write(fd, f"{seconds!r} {usage.ru_maxrss} {code} {cpu!r}\n".encode())
    os.close(fd)


if __name__ == "__main__":
    main()
