"""scripts/screenshot_report.py: a report as headless Chromium draws it (when installed)."""

from __future__ import annotations

import functools
import importlib.util
import sys
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import citeval_irm

pytestmark = pytest.mark.slow  # the quick subset (pytest -m 'not slow') leaves it out

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "screenshot_report.py"


@pytest.fixture(scope="module")
def script():
    spec = importlib.util.spec_from_file_location("screenshot_report", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture
def report_file(tmp_path) -> Path:
    qrels = {f"q{i}": {f"d{i}": 1} for i in range(20)}
    run = {f"q{i}": {f"d{j}": 1.0 - (j % 3) * 0.1 for j in range(10)} for i in range(20)}
    return citeval_irm.make_report({"tied": run}, qrels, "RR R@5").write(tmp_path / "r.html")


def test_a_report_screenshot_shows_the_page(script, report_file, tmp_path, capsys) -> None:
    if script.find_browser() is None:
        pytest.skip("no Chromium on the PATH (apt-get install chromium)")
    from PIL import Image

    output = tmp_path / "shot.png"
    assert script.main([str(report_file), "-o", str(output), "--height", "4000"]) == 0
    assert f"{output}: 1200 x " in capsys.readouterr().out
    image = Image.open(output).convert("L")
    assert image.width == 1200 and 1000 < image.height < 4000  # trimmed below the page
    dark = sum(image.histogram()[:128])
    assert dark > 10_000  # text, tables and plots, not a blank page


def test_without_a_browser_it_says_what_to_install(script, report_file, monkeypatch, capsys):
    monkeypatch.setenv("PATH", "")
    assert script.main([str(report_file)]) == script.EXIT_NO_BROWSER
    assert "apt-get install chromium" in capsys.readouterr().err


def test_a_page_served_on_this_machine_is_shot_and_other_hosts_refused(
    script, report_file, tmp_path, capsys
) -> None:
    with pytest.raises(SystemExit) as refused:
        script.main(["https://ir-datasets.com/", "-o", str(tmp_path / "x.png")])
    assert refused.value.code == 2 and "not an address on this machine" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        script.main(["http://127.0.0.1:9/"])  # no -o for an address
    assert "needs -o/--output" in capsys.readouterr().err
    if script.find_browser() is None:
        pytest.skip("no Chromium on the PATH (apt-get install chromium)")
    from PIL import Image

    handler = functools.partial(SimpleHTTPRequestHandler, directory=str(report_file.parent))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        address = f"http://127.0.0.1:{server.server_port}/{report_file.name}"
        output = tmp_path / "served.png"
        assert script.main([address, "-o", str(output), "--height", "3000"]) == 0
    finally:
        server.shutdown()
        server.server_close()
    image = Image.open(output).convert("L")
    assert image.width == 1200 and sum(image.histogram()[:128]) > 10_000  # the page, drawn
