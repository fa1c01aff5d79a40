"""The board page in a real browser: headless Chromium (Debian's ``chromium`` and
``chromium-driver``, which .ci/run installs) driven by Selenium against a real tavli-serve.

It loads a shareable address with a position and dice, sees the board and the hint table,
starts a rollout, sees its status move and its chart drawn, cancels it, and finds no console
error. The screenshot goes to the test's output (its path is printed, and recorded as the
test's ``screenshot`` property). Outside CI the test skips where Chromium is absent, and says
so; in CI (``CI`` set) it runs.
"""

from __future__ import annotations

import os
import re
import shutil
import time
from urllib.parse import quote

import pytest

pytest.importorskip("fastapi", reason="the [serve] extra (in the test extra) is not installed")
webdriver = pytest.importorskip("selenium.webdriver", reason="selenium (in the test extra) is not installed")

from selenium.common.exceptions import StaleElementReferenceException  # noqa: E402
from selenium.webdriver.chrome.options import Options  # noqa: E402
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402
from selenium.webdriver.support.ui import WebDriverWait  # noqa: E402

from served import start_server  # noqa: E402  (tests/serve/served.py)

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")


@pytest.fixture
def browser():
    if BROWSER is None or DRIVER is None:
        if os.environ.get("CI"):
            pytest.fail("CI must run the browser test: apt-get install chromium chromium-driver")
        pytest.skip("Chromium or its driver is absent (apt-get install chromium "
                    "chromium-driver): the page's browser test did not run")
    options = Options()
    options.binary_location = BROWSER
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--window-size=1300,1400"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # The system's driver: Selenium Manager would try to download one.
    driver = webdriver.Chrome(service=Service(executable_path=DRIVER), options=options)
    yield driver
    driver.quit()


def _trials_done(text: str) -> int | None:
    found = re.search(r"([\d,]+) / [\d,]+ trials", text)
    return int(found.group(1).replace(",", "")) if found else None


def test_the_page_shows_the_board_the_plays_and_a_live_rollout(browser, tmp_path, record_property):
    served = start_server("--jobs", "1")
    try:
        # The table may be drawn again while it is read (a row gone stale): read it again.
        wait = WebDriverWait(browser, 60, poll_frequency=0.1,
                             ignored_exceptions=(StaleElementReferenceException,))
        browser.get(f"{served.url}?position={quote('4HPwATDgc/ABMA')}&dice=31")
        rows = wait.until(lambda d: [t for t in (r.text for r in d.find_elements(
            By.CSS_SELECTOR, "[data-testid=hint-table] tbody tr")) if "/" in t] or None)
        assert len(rows) == 16 and rows[0].split()[1:3] == ["8/5", "6/5"]
        board = browser.find_element(By.CSS_SELECTOR, "[data-testid=board]")
        assert len(board.find_elements(By.CSS_SELECTOR, ".checker")) == 30
        assert len(board.find_elements(By.CSS_SELECTOR, ".point")) == 24
        assert "Cube 1, centred" in browser.find_element(By.CSS_SELECTOR, "[data-testid=cube]").text

        trials = browser.find_element(By.ID, "trials")
        trials.clear()
        trials.send_keys("200000")
        browser.find_element(By.ID, "stop").click()      # every play gets every trial
        browser.find_element(By.CSS_SELECTOR, "[data-testid=rollout-start]").click()
        status = browser.find_element(By.CSS_SELECTOR, "[data-testid=rollout-status]")
        first = wait.until(lambda d: _trials_done(status.text) or None)
        wait.until(lambda d: (_trials_done(status.text) or 0) > first)
        # Two lines (one a candidate play) over several points each, and their bands. The
        # chart is redrawn at each event: read it in one script, not element by element.
        points = ("return Array.from(document.querySelectorAll('[data-testid=rollout-chart] "
                  "polyline.series')).map(line => line.getAttribute('points').split(' ').length)")
        wait.until(lambda d: len([n for n in d.execute_script(points) if n >= 4]) >= 2)
        assert browser.execute_script("return document.querySelectorAll("
                                      "'[data-testid=rollout-chart] polygon.band').length") >= 2

        shot = tmp_path / "tavli-serve-page.png"
        browser.save_screenshot(str(shot))
        record_property("screenshot", str(shot))
        print(f"screenshot of the page: {shot}")
        assert shot.stat().st_size > 10_000

        browser.find_element(By.CSS_SELECTOR, "[data-testid=rollout-cancel]").click()
        asked = time.monotonic()
        wait.until(lambda d: status.text.startswith("cancelled"))
        assert time.monotonic() - asked < 10    # the target is 1 s; generous on a shared machine
        assert 0 < _trials_total(status.text) < 200_000 * 16
        errors = [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
        assert not errors, errors

        # The API page draws itself from files the package ships (no CDN: offline here).
        browser.get(f"{served.url}docs")
        wait.until(lambda d: "/v1/rollouts/{job_id}/events" in d.find_element(By.TAG_NAME, "body").text)
        assert not [e for e in browser.get_log("browser") if e["level"] == "SEVERE"]
    finally:
        assert served.stop() == 0


def _trials_total(text: str) -> int:
    found = re.search(r"([\d,]+) trials", text)
    assert found, text
    return int(found.group(1).replace(",", ""))
