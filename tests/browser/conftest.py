"""Browser-test fixtures: ONE JupyterLab server and ONE Debian Chromium (driven by Playwright)
per pytest session, and ONE page with JupyterLab loaded (`lab_page`): each test opens its
notebooks in it (loading and parsing JupyterLab's JavaScript once, not once per notebook), and
finds it as a page load leaves it (no document open, no kernel, Light theme). `page` is a
fresh page for a test's own HTML. Both fail the test on any request leaving 127.0.0.1 and save
a screenshot per test in `test-artifacts/`. `notebook(cells)`: write a notebook, open it in
JupyterLab, run all cells and return the page once every cell has run.

Nothing is downloaded at run time: Chromium is Debian's `chromium` package (never
`playwright install`). With CI set, a missing browser, Playwright or JupyterLab is an ERROR;
without CI the tests skip and say what is missing. Pitfalls worked around here are listed
in shared/recipes/README.md (announcement toast, persisted workspaces, kernel readiness,
kernelspec dialog, one sync_playwright per process, no time.sleep under a route guard).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers.kernels import write_kernelspec
from labpage import (
    KERNEL_DISPLAY,
    TOKEN,
    close_all,
    load_lab,
    open_and_run_all,
    set_theme,
    shutdown_kernels,
    write_notebook,
)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")  # Debian package `chromium`
CHROME_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
VIEWPORT = {"width": 1280, "height": 900}
# every URL but http(s)/ws(s) to 127.0.0.1 or localhost, data: and blob:
NON_LOCAL = re.compile(r"^(?!(https?|wss?)://(127\.0\.0\.1|localhost)[:/]|data:|blob:)")
_CI = os.environ.get("CI", "").lower() not in ("", "0", "false")


def _missing() -> str | None:
    """What the browser tests lack on this machine, or None."""
    if not Path(CHROMIUM).exists():
        return f"{CHROMIUM} is missing (apt-get install -y chromium)"
    for module in ("playwright", "jupyterlab", "nbformat", "ipykernel", "ipywidgets"):
        try:
            __import__(module)
        except ImportError as e:
            return f"Python package {module} is missing ({e}); pip install -e '.[test]'"
    return None


def _require_browser_stack() -> None:
    missing = _missing()
    if missing is None:
        return
    if _CI:  # CI must run the browser tests: a missing install is an error, never a skip
        raise RuntimeError(f"browser tests cannot run: {missing}")
    pytest.skip(f"browser tests skipped (CI unset): {missing}")


OUTSIDE = pytest.StashKey[list]()  # the URLs a test's page tried to reach outside 127.0.0.1
BROWSER_TIME_LIMIT = 600  # s: the first test also starts JupyterLab, Chromium and a kernel


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test under tests/browser is marked `browser` and gets BROWSER_TIME_LIMIT (an
    explicit @pytest.mark.timeout on the test still wins)."""
    here = Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.browser)
            item.add_marker(pytest.mark.timeout(BROWSER_TIME_LIMIT))


# --------------------------------------------------------------------------- the browser


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One Chromium for the session (two sync_playwright() alive at once fail)."""
    _require_browser_stack()
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, headless=True, args=CHROME_ARGS)
        yield b
        b.close()


def _guarded(pg: Any) -> list[str]:
    """Abort every request of `pg` that leaves 127.0.0.1; return the list its URLs go to.
    The pattern is matched in Playwright's driver: local requests never reach Python."""
    outside: list[str] = []

    def abort(route: Any) -> None:
        outside.append(route.request.url)
        route.abort()

    pg.route(NON_LOCAL, abort)
    return outside


def _screenshot(pg: Any, request: pytest.FixtureRequest) -> None:
    """A full-page screenshot to test-artifacts/<test name>.png (never hiding the test's own
    failure)."""
    artifacts = request.config.rootpath / "test-artifacts"
    artifacts.mkdir(exist_ok=True)
    name = re.sub(r"[^\w.-]", "_", request.node.name)
    with contextlib.suppress(Exception):
        pg.screenshot(path=str(artifacts / f"{name}.png"), full_page=True)


@pytest.fixture
def page(browser: Any, request: pytest.FixtureRequest) -> Iterator[Any]:
    """A fresh context and page (for a test's own HTML: `set_content`). Every request that
    leaves 127.0.0.1 is aborted and fails the test at teardown; a full-page screenshot goes to
    test-artifacts/<test name>.png. Never time.sleep() in a test, use
    page.wait_for_timeout(ms) or expect(...)."""
    ctx = browser.new_context(viewport=VIEWPORT)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    outside = _guarded(pg)
    request.node.stash[OUTSIDE] = outside
    yield pg
    _screenshot(pg, request)
    ctx.close()
    assert not outside, f"requests to non-local hosts: {outside}"


@pytest.fixture(scope="session")
def _lab_session(browser: Any, lab: tuple[str, Path]) -> Iterator[tuple[Any, list[str]]]:
    """One page with JupyterLab loaded, for the whole session, and its guard's list."""
    ctx = browser.new_context(viewport=VIEWPORT, accept_downloads=True)
    pg = ctx.new_page()
    pg.set_default_timeout(30_000)
    outside = _guarded(pg)
    load_lab(pg, lab[0])
    yield pg, outside
    ctx.close()


_LEFT_OPEN = """() => { const shell = window.jupyterapp.shell;
  if (shell.leftCollapsed) window.jupyterapp.commands.execute('application:toggle-left-area');
  return true; }"""


@pytest.fixture
def lab_page(
    _lab_session: tuple[Any, list[str]], lab: tuple[str, Path], request: pytest.FixtureRequest
) -> Iterator[Any]:
    """The session's JupyterLab page, as a page load would leave it: no document open, no
    kernel running, the default viewport, the file browser shown, the Light theme. Every
    request that leaves 127.0.0.1 is aborted and fails the test at teardown; a full-page
    screenshot goes to test-artifacts/<test name>.png. Open notebooks with
    labpage.open_notebook / open_and_run_all (not page.goto: that loads JupyterLab again)."""
    pg, outside = _lab_session
    base = lab[0]
    try:
        close_all(pg)
    except Exception:  # a test before left the page unusable: load JupyterLab again
        load_lab(pg, base)
    with contextlib.suppress(OSError):
        shutdown_kernels(base)
    pg.set_viewport_size(VIEWPORT)
    pg.evaluate(_LEFT_OPEN)
    if pg.evaluate("() => document.body.dataset.jpThemeLight") != "true":
        set_theme(pg, "JupyterLab Light")
    outside.clear()
    request.node.stash[OUTSIDE] = outside
    yield pg
    _screenshot(pg, request)
    with contextlib.suppress(Exception):
        close_all(pg)
    assert not outside, f"requests to non-local hosts: {outside}"


@pytest.fixture
def outside_requests(page: Any, request: pytest.FixtureRequest) -> list[str]:
    """The list `page`'s guard fills with the non-local URLs it aborted (the test fails at
    teardown unless it is empty then)."""
    return request.node.stash[OUTSIDE]


# --------------------------------------------------------------------------- the server


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _write_config(home: Path) -> None:
    """Temporary Jupyter config: no announcements toast, every cell kept in the DOM, and a
    `python3` kernelspec running this interpreter (the one didax is installed in)."""
    labconfig = home / "config" / "labconfig"
    labconfig.mkdir(parents=True)
    (labconfig / "page_config.json").write_text(
        json.dumps(
            {
                "disabledExtensions": {"@jupyterlab/apputils-extension:announcements": True},
                "exposeAppInBrowser": True,  # window.jupyterapp: run commands (change theme)
            }
        )
    )
    tracker = home / "settings" / "@jupyterlab" / "notebook-extension"
    tracker.mkdir(parents=True)
    (tracker / "tracker.jupyterlab-settings").write_text(json.dumps({"windowingMode": "none"}))
    write_kernelspec(home / "data" / "kernels" / "python3", KERNEL_DISPLAY)


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """JupyterLab on 127.0.0.1:<free port> with a fixed token; yields (base_url, notebook_dir)."""
    _require_browser_stack()
    root = tmp_path_factory.mktemp("lab")
    nbdir, home = root / "notebooks", root / "jhome"
    nbdir.mkdir()
    _write_config(home)
    env = dict(
        os.environ,
        JUPYTER_CONFIG_DIR=str(home / "config"),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        # the base interpreter's share/jupyter too: a venv made with --system-site-packages
        # does not search it, and ipywidgets' lab extension may be installed there
        JUPYTER_PATH=os.pathsep.join(
            [str(home / "data"), str(Path(sys.base_prefix, "share", "jupyter"))]
        ),
        JUPYTER_PLATFORM_DIRS="1",
    )
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    port = _free_port()
    cmd = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--ServerApp.port_retries=0",
        f"--ServerApp.root_dir={nbdir}",
        f"--IdentityProvider.token={TOKEN}",
        f"--LabApp.workspaces_dir={home / 'ws'}",
        # checkpoints in one folder of the server's (the default is beside each file opened:
        # a rule's file opened through didax_source would get one inside the package)
        f"--FileCheckpoints.checkpoint_dir={home / 'checkpoints'}",
        f"--LabApp.user_settings_dir={home / 'settings'}",
        "--LabApp.news_url=None",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]
    log_path = root / "lab.log"
    with open(log_path, "w") as log:
        proc = subprocess.Popen(cmd, env=env, stdout=log, stderr=subprocess.STDOUT, cwd=nbdir)
        base = f"http://127.0.0.1:{port}"
        deadline = time.time() + 90
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={TOKEN}", timeout=1)
                break
            except OSError:
                if proc.poll() is not None or time.time() > deadline:
                    proc.kill()
                    pytest.fail("JupyterLab did not start:\n" + log_path.read_text()[-3000:])
                time.sleep(0.2)
        try:
            yield base, nbdir
        finally:
            with contextlib.suppress(OSError):
                shutdown_kernels(base)
            proc.send_signal(signal.SIGTERM)  # the server shuts its kernels down on SIGTERM
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


@pytest.fixture
def notebook(
    lab: tuple[str, Path], lab_page: Any, request: pytest.FixtureRequest
) -> Iterator[Callable[..., Any]]:
    """`notebook(cells, name=None)`: write the cells (a list of sources) as a notebook, open it
    in the session's JupyterLab (`lab_page`), run all cells and return the page after every
    cell ran. Kernels are shut down after the test."""
    base, nbdir = lab

    def run(cells: list[str], name: str | None = None) -> Any:
        name = name or re.sub(r"[^\w-]", "_", request.node.name) + ".ipynb"
        write_notebook(nbdir / name, cells)
        open_and_run_all(lab_page, name)
        return lab_page

    yield run
    with contextlib.suppress(OSError):
        shutdown_kernels(base)
