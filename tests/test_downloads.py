"""Downloads against a loopback HTTP server: success, checksums, failures, atomicity."""

from __future__ import annotations

import gzip
import hashlib
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from citeval_irm.base.downloads import (
    Checksum,
    ChecksumError,
    DownloadError,
    Limits,
    RecordError,
    Unreachable,
    content_problem,
    download,
    file_checksum,
    fingerprint,
    read_record,
    record_path,
    verify_file,
    verify_record,
    write_record,
)
from citeval_irm.base.errors import InputError

CONTENT = b'{"a": 1}\n' * 5000


def _leftovers(folder: Path) -> list[str]:
    """What is in ``folder``: lock files included (their holder removes them)."""
    if not folder.exists():
        return []
    return sorted(p.name for p in folder.iterdir())


def test_checksums_match_hashlib_and_git(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(CONTENT)
    assert file_checksum(path, "md5") == hashlib.md5(CONTENT).hexdigest()
    assert file_checksum(path, "sha256") == hashlib.sha256(CONTENT).hexdigest()
    git = subprocess.run(
        ["git", "hash-object", str(path)], capture_output=True, text=True, check=False
    )
    if git.returncode != 0:
        pytest.skip("git is not available")
    assert file_checksum(path, "git-blob-sha1") == git.stdout.strip()


def test_checksum_rejects_bad_values() -> None:
    with pytest.raises(ValueError, match="unknown checksum algorithm"):
        Checksum("crc32", "0" * 8)
    with pytest.raises(ValueError, match="not a md5 hex digest"):
        Checksum("md5", "abc")
    assert Checksum("md5", "A" * 32).value == "a" * 32


def test_verify_file_names_file_and_both_checksums(tmp_path: Path) -> None:
    path = tmp_path / "papers.json"
    path.write_bytes(CONTENT)
    wrong = "0" * 40
    with pytest.raises(ChecksumError) as info:
        verify_file(path, Checksum("git-blob-sha1", wrong))
    message = str(info.value)
    assert "papers.json" in message and wrong in message
    assert file_checksum(path, "git-blob-sha1") in message


@pytest.mark.parametrize("algorithm", ["md5", "sha256", "git-blob-sha1"])
def test_download_success(tmp_path: Path, http_files, algorithm: str) -> None:
    http_files.files["data/f.json"] = CONTENT
    reference = tmp_path / "reference"
    reference.write_bytes(CONTENT)
    checksum = Checksum(algorithm, file_checksum(reference, algorithm))
    dest = tmp_path / "out" / "f.json"
    assert download(http_files.base_url + "data/f.json", dest, checksum, progress=False) == dest
    assert dest.read_bytes() == CONTENT
    assert _leftovers(dest.parent) == ["f.json"]
    # a verified copy is reused without a request
    download(http_files.base_url + "data/f.json", dest, checksum, progress=False)
    assert http_files.requests == ["data/f.json"]


def test_download_replaces_damaged_copy(tmp_path: Path, http_files) -> None:
    http_files.files["f.json"] = CONTENT
    dest = tmp_path / "f.json"
    dest.write_bytes(b"damaged")
    download(
        http_files.base_url + "f.json",
        dest,
        Checksum("md5", hashlib.md5(CONTENT).hexdigest()),
        progress=False,
    )
    assert dest.read_bytes() == CONTENT


def test_checksum_mismatch_leaves_nothing(tmp_path: Path, http_files) -> None:
    http_files.files["f.json"] = CONTENT
    dest = tmp_path / "out" / "f.json"
    expected = "1" * 32
    with pytest.raises(ChecksumError) as info:
        download(http_files.base_url + "f.json", dest, Checksum("md5", expected), progress=False)
    message = str(info.value)
    assert str(dest) in message
    assert expected in message and hashlib.md5(CONTENT).hexdigest() in message
    assert _leftovers(dest.parent) == []


def test_truncated_transfer_is_an_error(tmp_path: Path, http_files) -> None:
    http_files.files["f.json"] = CONTENT
    dest = tmp_path / "f.json"
    with pytest.raises(DownloadError, match="truncated|IncompleteRead") as info:
        download(http_files.base_url + "truncated/f.json", dest, tries=2, retry_wait=0)
    assert "gave up after 2 tries" in str(info.value)
    assert http_files.requests == ["truncated/f.json"] * 2
    assert _leftovers(tmp_path) == []


def test_server_error_is_retried_then_reported(tmp_path: Path, http_files) -> None:
    dest = tmp_path / "f.json"
    with pytest.raises(DownloadError, match="HTTP 500") as info:
        download(http_files.base_url + "status/500/f.json", dest, tries=3, retry_wait=0)
    assert "status/500/f.json" in str(info.value)
    assert len(http_files.requests) == 3
    assert _leftovers(tmp_path) == []


def test_transient_server_error_recovers(tmp_path: Path, http_files) -> None:
    http_files.files["f.json"] = CONTENT
    dest = tmp_path / "f.json"
    download(http_files.base_url + "flaky/f.json", dest, tries=2, retry_wait=0, progress=False)
    assert dest.read_bytes() == CONTENT
    assert http_files.requests == ["flaky/f.json"] * 2


def test_missing_file_fails_at_once(tmp_path: Path, http_files) -> None:
    dest = tmp_path / "f.json"
    with pytest.raises(DownloadError, match="HTTP 404") as info:
        download(http_files.base_url + "nope.json", dest, tries=3, retry_wait=0)
    assert "nope.json" in str(info.value)
    assert http_files.requests == ["nope.json"]  # not retried
    assert _leftovers(tmp_path) == []


def test_unreachable_host_is_a_download_error(tmp_path: Path) -> None:
    # port 9 on loopback: nothing listens there, the connection is refused at once
    with pytest.raises(DownloadError, match="127.0.0.1:9"):
        download("http://127.0.0.1:9/f.json", tmp_path / "f.json", tries=1)


def test_record_for_files_without_a_published_checksum(tmp_path: Path, http_files) -> None:
    http_files.files["f.json"] = CONTENT
    dest = tmp_path / "f.json"
    url = http_files.base_url + "f.json"
    download(url, dest, record=True, progress=False)
    record = read_record(dest)
    assert record["sha256"] == hashlib.sha256(CONTENT).hexdigest()
    assert (record["size"], record["origin"], record["file"]) == (len(CONTENT), url, "f.json")
    assert record_path(dest).name == "f.json.download.json"
    # touched but unchanged: accepted, and the record follows the new mtime
    os.utime(dest, ns=(1, 1))
    download(url, dest, record=True)
    assert read_record(dest)["mtime_ns"] == 1 and http_files.requests == ["f.json"]
    # changed: an error naming the file and both sha256, never a silent re-use
    dest.write_bytes(CONTENT[:-1] + b"?")
    with pytest.raises(ChecksumError) as info:
        verify_record(dest)
    message = str(info.value)
    assert str(dest) in message and record["sha256"] in message and url in message
    assert hashlib.sha256(dest.read_bytes()).hexdigest() in message
    with pytest.raises(ChecksumError):
        download(url, dest, record=True)


def test_no_record_means_nothing_to_check_but_a_bad_record_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "f.json"
    path.write_bytes(CONTENT)
    assert verify_record(path) is None  # no record: the caller decides (see sources)
    for bad in ("not json", '{"sha256": "x"}', "[]"):  # damaged: never read as "no record"
        record_path(path).write_text(bad, encoding="utf-8")
        with pytest.raises(RecordError) as info:
            verify_record(path)
        assert str(record_path(path)) in str(info.value) and "delete f.json" in str(info.value)
    write_record(path, "a folder")
    assert read_record(path)["origin"] == "a folder"
    assert verify_record(path, full=True)["fingerprint"] == fingerprint(path)


def test_http_errors_carry_their_status(tmp_path: Path, http_files) -> None:
    with pytest.raises(DownloadError) as info:
        download(http_files.base_url + "nope.json", tmp_path / "f.json", tries=1)
    assert info.value.status == 404
    with pytest.raises(DownloadError) as info:
        download(http_files.base_url + "status/500/f", tmp_path / "f.json", tries=1)
    assert info.value.status == 500


# --------------------------------------------------------------------------- not the file


@pytest.mark.parametrize(
    ("path", "problem"),
    [
        ("cut/f.json", "a JSON file cut short"),  # no Content-Length to tell
        ("status/204/f.json", "HTTP 204"),
        ("html/f.json", r"not a JSON file \(an HTML or XML page, not the file\)"),
    ],
)
def test_a_body_that_is_not_the_file_is_never_recorded(
    tmp_path: Path,
    http_files,
    path: str,
    problem: str,
) -> None:
    http_files.files["f.json"] = b'{"papers": [' + b'"a paper", ' * 2000 + b'"last"]}\n'
    dest = tmp_path / "f.json"
    with pytest.raises(DownloadError, match=problem):
        download(http_files.base_url + path, dest, record=True, tries=1, progress=False)
    assert _leftovers(tmp_path) == []  # neither the file nor a record


def test_a_gzip_encoded_body_is_stored_decoded(tmp_path: Path, http_files) -> None:
    http_files.files["f.json"] = CONTENT
    dest = tmp_path / "f.json"
    download(http_files.base_url + "gzip/f.json", dest, record=True, progress=False)
    assert dest.read_bytes() == CONTENT
    assert read_record(dest)["sha256"] == hashlib.sha256(CONTENT).hexdigest()


def test_content_problem_knows_parquet_and_json() -> None:
    assert content_problem(Path(__file__), "x.py") is None  # other formats: non-empty only
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "t.parquet"
        path.write_bytes(b"PAR1" + b"\0" * 100)
        assert "a Parquet file cut short" in content_problem(path)
        path.write_bytes(gzip.compress(b"PAR1xxPAR1"))
        assert "not a Parquet file (gzip-compressed)" in content_problem(path)
        path.write_bytes(b"PAR1" + b"\0" * 100 + b"PAR1")
        assert content_problem(path) is None


# --------------------------------------------------------------------------- slow servers


@pytest.mark.slow
def test_a_trickling_server_stalls(tmp_path: Path, http_files) -> None:
    """A byte every 50 ms never trips a per-read timeout; the stall timeout catches it."""
    http_files.files["f.json"] = CONTENT
    started = time.monotonic()
    with pytest.raises(DownloadError, match="stalled: .* bytes in the last 1 s") as info:
        download(
            http_files.base_url + "trickle/f.json",
            tmp_path / "f.json",
            tries=2,
            retry_wait=0,
            stall_timeout=0.8,
        )
    assert time.monotonic() - started < 6
    assert "gave up after 2 tries" in str(info.value)
    assert _leftovers(tmp_path) == []


@pytest.mark.slow
def test_the_deadline_bounds_the_whole_download(tmp_path: Path, http_files) -> None:
    http_files.files["f.json"] = CONTENT
    started = time.monotonic()
    with pytest.raises(DownloadError, match="not finished within the deadline of 1 s"):
        download(http_files.base_url + "trickle/f.json", tmp_path / "f.json", deadline=1, tries=3)
    assert time.monotonic() - started < 4
    assert _leftovers(tmp_path) == []


@pytest.mark.slow
def test_a_silent_server_fails_fast_and_the_defaults_within_a_minute(
    tmp_path: Path,
    http_files,
) -> None:
    http_files.files["f.json"] = CONTENT
    started = time.monotonic()
    with pytest.raises(DownloadError, match="timed out"):
        download(
            http_files.base_url + "silent/f.json",
            tmp_path / "f.json",
            stall_timeout=0.5,
            retry_wait=0.1,
        )
    assert time.monotonic() - started < 5  # three tries of half a second
    limits = Limits.configured()  # the defaults (no CITEVAL_DOWNLOAD_* set in tests)
    waits = sum(limits.retry_wait * 2**n for n in range(limits.tries - 1))
    assert limits.tries * limits.stall_timeout + waits < 40  # as the datasets guide says
    assert limits.min_rate * limits.stall_timeout == 16 * 1024


@pytest.mark.slow
def test_the_rule_is_set_from_the_environment(tmp_path: Path, http_files, monkeypatch) -> None:
    """CITEVAL_DOWNLOAD_TIMEOUT and CITEVAL_DOWNLOAD_MIN_RATE set the rule of every download
    (the retries' waits follow the timeout); a bad value is an error naming the variable."""
    monkeypatch.setenv("CITEVAL_DOWNLOAD_TIMEOUT", "0.5")
    monkeypatch.setenv("CITEVAL_DOWNLOAD_MIN_RATE", "100000")
    assert Limits.configured() == Limits(0.5, 100_000.0, retry_wait=0.1)
    http_files.files["f.json"] = CONTENT
    started = time.monotonic()
    with pytest.raises(DownloadError, match="under the minimum rate of 100,000 bytes/s"):
        download(http_files.base_url + "trickle/f.json", tmp_path / "f.json")
    assert time.monotonic() - started < 4  # three tries of half a second, 0.1 s + 0.2 s waits
    assert _leftovers(tmp_path) == []
    for name, value in [
        ("CITEVAL_DOWNLOAD_TIMEOUT", "0"),
        ("CITEVAL_DOWNLOAD_TIMEOUT", "ten"),
        ("CITEVAL_DOWNLOAD_MIN_RATE", "-1"),
        ("CITEVAL_DOWNLOAD_MIN_RATE", "inf"),
    ]:
        monkeypatch.setenv(name, value)
        with pytest.raises(InputError, match=rf"^{name}: '{value}' is not a number"):
            download(http_files.base_url + "f.json", tmp_path / "f.json")
        monkeypatch.delenv(name)
    assert _leftovers(tmp_path) == []


def test_a_host_that_cannot_be_reached_is_not_retried(tmp_path: Path) -> None:
    started = time.monotonic()
    with pytest.raises(Unreachable, match="cannot reach the host: ConnectionRefusedError"):
        download("http://127.0.0.1:9/f.json", tmp_path / "f.json", tries=3, retry_wait=5)
    assert time.monotonic() - started < 2  # no wait of 5 s: tried once
    assert _leftovers(tmp_path) == []


# --------------------------------------------------------------------------- killed downloads

KILLED = """
import sys
from citeval_irm.base.downloads import download
download(sys.argv[1], sys.argv[2], stall_timeout=60)
"""


def test_the_part_file_of_a_killed_download_is_removed_next_time(
    tmp_path: Path,
    http_files,
) -> None:
    http_files.files["f.json"] = CONTENT
    dest = tmp_path / "f.json"
    url = http_files.base_url + "trickle/f.json"
    process = subprocess.Popen([sys.executable, "-c", KILLED, url, str(dest)])
    deadline = time.monotonic() + 60
    while not list(tmp_path.glob(".f.json.*.part")):
        assert time.monotonic() < deadline and process.poll() is None
        time.sleep(0.05)
    process.kill()
    process.wait(timeout=30)
    assert len(list(tmp_path.glob(".f.json.*.part"))) == 1  # what a killed download leaves
    download(http_files.base_url + "f.json", dest, progress=False)
    assert _leftovers(tmp_path) == ["f.json"] and dest.read_bytes() == CONTENT
