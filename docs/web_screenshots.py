"""Screenshots of the analysis board for docs/web.md (headless Chromium).

    python docs/web_screenshots.py      # writes docs/web-board.png, docs/web-analysis.png, docs/web-review.png
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from kwsearch.web.browser import browser_missing, chromium, running_server, wait_script  # noqa: E402


def _wait(driver, script: str, timeout: float = 20.0):
    return wait_script(driver, script, timeout, poll=0.05)


def _goto(driver, node: int) -> None:
    driver.execute_script(f"goto({node})")
    _wait(driver, f"return S.view && S.view.node === {node}")


def main() -> int:
    why = browser_missing()
    if why:
        print(f"web_screenshots: {why}", file=sys.stderr)
        return 1
    out = ROOT / "docs"
    record = json.loads((ROOT / "examples" / "game-2p.json").read_text())
    last = sum(1 for e in record["events"] if not e.startswith("reveal"))  # the main line's last node
    with tempfile.TemporaryDirectory() as games:
        args = ["examples/game-2p.json", "--review", "examples/game-2p.review.json"]
        with running_server(args, games_dir=Path(games), cwd=ROOT) as url, chromium(1500, 1020) as driver:
            driver.get(url)
            _wait(driver, "return document.querySelectorAll('#moves .mv').length > 60")
            # the board in the middle of the game, with a what-if variation in the move list
            _goto(driver, 33)
            driver.execute_script("playAction(S.view.legal[0].action)")  # not the move played there
            _wait(driver, f"return S.view && S.view.node > {last}")  # the variation's new node
            _goto(driver, 34)
            time.sleep(0.5)
            driver.save_screenshot(str(out / "web-board.png"))
            # live analysis, stopped: the options re-searched alone, their 95% intervals as error bars,
            # the equal band and the verdict (issue 29)
            _goto(driver, 26)
            driver.find_element("id", "btn-analyse").click()
            time.sleep(3.0)
            driver.find_element("id", "btn-analyse").click()
            _wait(driver, "return S.analysis === null && !!S.lastResult.rootInfo.confidence")
            time.sleep(0.3)
            driver.find_element("id", "engine").screenshot(str(out / "web-analysis.png"))
            # the review's win-probability graph
            _goto(driver, 44)
            panel = driver.find_element("id", "graph-panel")
            driver.execute_script("arguments[0].scrollIntoView()", panel)
            time.sleep(0.3)
            panel.screenshot(str(out / "web-review.png"))
    print("wrote docs/web-board.png, docs/web-analysis.png, docs/web-review.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
