"""Headless Chromium for the report tests: open a page, run a checking script, read its findings.

:func:`run_checks` copies a report, adds a listener at the very start of its
``<head>`` (before any of the page's own content, so nothing the page holds
can run first) and a checking script before ``</body>``; Chromium runs both
(``--dump-dom``) and the checking script writes its findings as JSON into a
``<pre id="browser-test">``, which is returned as a dict. The listener
records, under ``found.dialogs`` and ``found.errors``, every ``alert``,
``confirm``, ``prompt`` or ``print`` call and every script error (uncaught
exceptions and unhandled promise rejections) from the first byte of the page
to the end of the checks.

The tests install nothing: :data:`needs_browser` skips them, with the reason,
when no Chromium is on the PATH (``.ci/run`` installs Debian's ``chromium``
where it can).
"""

import html
import json
import shutil
import subprocess

import pytest

__all__ = ["BROWSER", "LISTENER", "WIDTH", "needs_browser", "run_checks"]

BROWSER = next(
    (path for name in ("chromium", "chromium-browser", "google-chrome") if (path := shutil.which(name))),
    None,
)
needs_browser = pytest.mark.skipif(
    BROWSER is None, reason="no Chromium on PATH (apt-get install chromium); the test installs nothing"
)
#: Width of the window, in CSS pixels.
WIDTH = 1280

#: Inserted right after ``<head>``: records every dialog and script error in
#: ``window.__found`` (the checking script starts from it).
LISTENER = """<script>
window.__found = {dialogs: [], errors: []};
["alert", "confirm", "prompt", "print"].forEach(function (name) {
  window[name] = function (message) { window.__found.dialogs.push(name + ": " + String(message)); };
});
window.addEventListener("error", function (event) {
  if (event.error !== undefined || event.message) {
    window.__found.errors.push(String(event.message || event.error));
  }
});
window.addEventListener("unhandledrejection", function (event) {
  window.__found.errors.push("unhandled rejection: " + String(event.reason));
});
</script>"""


def run_checks(report, checks, tmp_path, *, height=900):
    """Open ``report`` in headless Chromium with :data:`LISTENER` and ``checks``; the findings.

    Parameters
    ----------
    report : pathlib.Path
        An HTML page.
    checks : str
        A ``<script>`` that, once the page has loaded, adds its findings to
        ``window.__found`` and writes ``JSON.stringify(window.__found)`` into
        a ``<pre id="browser-test">`` appended to the body.
    tmp_path : pathlib.Path
        Where the checked copy goes.
    height : int, default=900
        Height of the window.

    Returns
    -------
    dict
        The findings, with ``dialogs`` and ``errors`` (lists of strings).
    """
    page = report.read_text(encoding="utf-8")
    assert page.count("<head>") == 1 and page.count("</body>") == 1
    page = page.replace("<head>", "<head>" + LISTENER).replace("</body>", checks + "</body>")
    checked = tmp_path / f"checked-{report.parent.name}.html"
    checked.write_text(page, encoding="utf-8")
    run = subprocess.run(
        [BROWSER, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         f"--window-size={WIDTH},{height}", "--virtual-time-budget=20000", "--dump-dom",
         checked.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    dom = run.stdout
    assert dom.count('<pre id="browser-test">') == 1, run.stderr[-2000:]
    return json.loads(html.unescape(dom.split('<pre id="browser-test">')[1].split("</pre>")[0]))
