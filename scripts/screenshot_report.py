"""Screenshot a citeval report, or a page of the documentation site served on this machine,
in headless Chromium, so a person can look at it as a browser shows it (fonts, tables,
plots), or put it in the README.

    python scripts/screenshot_report.py demo-report.html -o docs/demo-report.png
    python scripts/screenshot_report.py demo-report.html -o top.png --height 2600
    mkdocs build -d /tmp/site && python -m http.server -b 127.0.0.1 -d /tmp/site 8000 &
    python scripts/screenshot_report.py http://127.0.0.1:8000/reference/datasets/ -o index.png

Needs Chromium (Debian: ``apt-get install chromium``) or Chrome on the PATH; exits with
status 3 and says so when there is none. Chromium runs offline (no background networking,
no component updates, a throwaway profile), and the page it opens is a local file that
references nothing outside itself, or an address on this machine (127.0.0.1, localhost):
any other host is refused. The screenshot is trimmed of the blank space below the
page; ``--colors`` quantises it to a palette (a smaller file for the README).
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
EXIT_NO_BROWSER = 3
LOOPBACK = ("127.0.0.1", "localhost", "::1")


def page_address(page: str) -> str:
    """The address Chromium opens: a file's ``file://`` URI, or an ``http(s)`` address on
    this machine as given; an address on any other host is an error (the browser runs
    offline, and a screenshot of this package's pages needs nothing from elsewhere)."""
    parts = urlsplit(page)
    if parts.scheme in ("http", "https"):
        if parts.hostname not in LOOPBACK:
            raise ValueError(f"not an address on this machine: {page} (serve it on 127.0.0.1)")
        return page
    return Path(page).resolve().as_uri()


def find_browser() -> str | None:
    """The first Chromium-like browser on the PATH."""
    return next((found for name in BROWSERS if (found := shutil.which(name))), None)


def screenshot(report: str, output: Path, *, width: int, height: int, browser: str) -> None:
    """``report`` (a file or a loopback address, see :func:`page_address`) rendered at
    ``width`` x ``height`` CSS pixels into ``output`` (PNG)."""
    with tempfile.TemporaryDirectory(prefix="citeval-chromium-") as profile:
        command = [
            browser,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--hide-scrollbars",
            "--force-device-scale-factor=1",
            f"--user-data-dir={profile}",
            f"--window-size={width},{height}",
            f"--screenshot={output.resolve()}",
            page_address(report),
        ]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    if done.returncode != 0 or not output.is_file():
        raise SystemExit(f"{browser} failed ({done.returncode}): {done.stderr[-2000:]}")


def trim(output: Path, colors: int | None) -> tuple[int, int]:
    """Cut the blank rows below the page; optionally quantise to ``colors``. Returns the
    final size."""
    from PIL import Image, ImageChops

    image = Image.open(output).convert("RGB")
    background = Image.new("RGB", image.size, (255, 255, 255))
    box = ImageChops.difference(image, background).getbbox()
    if box is not None:
        image = image.crop((0, 0, image.width, min(image.height, box[3] + 24)))
    if colors:
        image = image.quantize(colors=colors, method=Image.Quantize.MEDIANCUT)
    image.save(output, optimize=True)
    return image.size


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "report",
        help="an HTML report (citeval ... --report X.html), or a page served on this machine "
        "(http://127.0.0.1:8000/reference/datasets/)",
    )
    parser.add_argument(
        "-o", "--output", type=Path, help="PNG to write (default: REPORT.png; needed for a URL)"
    )
    parser.add_argument("--width", type=int, default=1200, help="window width (default 1200)")
    parser.add_argument(
        "--height",
        type=int,
        default=16000,
        help="window height: the page is cut here (default 16000, the whole of most reports)",
    )
    parser.add_argument("--colors", type=int, help="quantise to this many colours (e.g. 128)")
    args = parser.parse_args(argv)
    is_address = urlsplit(args.report).scheme in ("http", "https")
    try:
        page_address(args.report)
    except ValueError as error:
        parser.error(str(error))
    if args.output is None and is_address:
        parser.error("a page's address needs -o/--output")
    browser = find_browser()
    if browser is None:
        print(
            "no Chromium or Chrome on the PATH (Debian: apt-get install chromium)",
            file=sys.stderr,
        )
        return EXIT_NO_BROWSER
    output = args.output or Path(args.report).with_suffix(".png")
    screenshot(args.report, output, width=args.width, height=args.height, browser=browser)
    width, height = trim(output, args.colors)
    print(f"{output}: {width} x {height} px ({output.stat().st_size:,} bytes)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
