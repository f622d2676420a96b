#!/usr/bin/python3
"""An independent AT-SPI reader for the real-applications kit: pyatspi, never the project's code.

Run with Debian's Python (python3-pyatspi) and the test desktop's environment (DISPLAY,
DBUS_SESSION_BUS_ADDRESS tell libatspi where the accessibility bus is):

    peer.py read  --app A --title T [--max-nodes N] [--wait-ms W]
    peer.py find  --app A --title T --role R [--name N] [--nth I] [--wait-ms W]
    peer.py cell  --app A --title T --row R --column C [--wait-ms W]
    peer.py ping  --app A [--timeout-ms T]
    peer.py watch --app A [--interval-ms 200] [--for-ms D] [--timeout-ms T]

--app is the application's name on the registry, --title the exact name of its top-level window.

read: the window's elements in document order (depth first, parents first), each
{role, name, text?, value?, states, depth}: role is pyatspi's role name, text the Text interface's
getText(0, characterCount), value the Value interface's current value. It never lists the children
of an object with STATE_MANAGES_DESCENDANTS that has the Table interface (a LibreOffice sheet
claims 2^31): it reports {rows, columns, children} for it and stops there. Other such containers
(a Writer document lists its visible paragraphs) are entered only when they claim at most
MANAGED_CHILDREN_MAX children, and carry "managed": true; larger ones are reported, not entered.

find: the --nth (from 0) element of that walk with role R (and name N): {role, name, text?,
value?, states}. --wait-ms looks again every 100 ms until it is there.

cell: one cell of the window's first table, asked for alone with Table.getAccessibleAt(row, column)
(0-based), never by listing the table: {name, text?}.

ping: one cheap round trip to the app (its name and its first child's role, libatspi's cache
bypassed) answered {ok, ms} or {ok: false, error} within --timeout-ms, even if the app is frozen.
watch: a ping every --interval-ms for --for-ms: {pings, failures, max_ms, p95_ms (answered pings),
max_stall_ms (longest wait for an unanswered one), errors}.

Prints one JSON object on stdout; {"error": ...} with exit code 2 when it cannot answer.
"""

import argparse
import json
import math
import os
import sys
import threading
import time

import pyatspi
from gi.repository import Atspi

WINDOW_ROLES = {
    pyatspi.ROLE_FRAME,
    pyatspi.ROLE_WINDOW,
    pyatspi.ROLE_DIALOG,
    pyatspi.ROLE_ALERT,
    pyatspi.ROLE_FILE_CHOOSER,
}

# A managed container with more children than this is not entered (a Writer page lists dozens).
MANAGED_CHILDREN_MAX = 500

# libatspi's per-call timeout while reading (read, find): soffice took 0.4 s to say its name when
# idle and 0.6 s while another client read it (measured), more on a loaded machine.
CALL_TIMEOUT_MS = 5000


def parse_args(argv):
    parser = argparse.ArgumentParser(description="pyatspi peer of the real-applications kit")
    modes = parser.add_subparsers(dest="mode", required=True)
    for mode in ("read", "find"):
        p = modes.add_parser(mode)
        p.add_argument("--app", required=True)
        p.add_argument("--title", required=True)
        p.add_argument("--max-nodes", type=int, default=5000)
        p.add_argument("--wait-ms", type=int, default=0)
        if mode == "find":
            p.add_argument("--role", required=True)
            p.add_argument("--name", default=None)
            p.add_argument("--nth", type=int, default=0)
    cell = modes.add_parser("cell")
    cell.add_argument("--app", required=True)
    cell.add_argument("--title", required=True)
    cell.add_argument("--row", type=int, required=True)
    cell.add_argument("--column", type=int, required=True)
    cell.add_argument("--wait-ms", type=int, default=0)
    ping = modes.add_parser("ping")
    ping.add_argument("--app", required=True)
    ping.add_argument("--timeout-ms", type=int, default=2000)
    watch = modes.add_parser("watch")
    watch.add_argument("--app", required=True)
    watch.add_argument("--interval-ms", type=int, default=200)
    watch.add_argument("--for-ms", type=int, default=5000)
    watch.add_argument("--timeout-ms", type=int, default=2000)
    return parser.parse_args(argv)


def fail(message, **fields):
    print(json.dumps({"error": message, **fields}))
    sys.stdout.flush()
    os._exit(2)  # never wait on a libatspi call stuck in another thread


def find_app(name, silent=None):
    """The application named `name` on the registry, or None; the pids of those that did not answer go into `silent`."""
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        try:
            app = desktop.getChildAtIndex(i)
            if app is None:
                continue
            # A call that timed out reads as "" here, not as an exception.
            answer = app.name
            if answer == name:
                return app
            if not answer and silent is not None:
                silent.append(guarded(app.get_process_id))  # answered by the bus daemon itself
        except Exception:  # an application that went away
            continue
    return None


def find_window(app_name, title):
    """The window titled `title` of any application named `app_name` (two Chromiums are two applications of one name)."""
    desktop = pyatspi.Registry.getDesktop(0)
    for i in range(desktop.childCount):
        app = guarded(lambda: desktop.getChildAtIndex(i))
        if app is None or guarded(lambda: app.name) != app_name:
            continue
        for j in range(app.childCount):
            win = guarded(lambda: app.getChildAtIndex(j))
            if win is not None and win.name == title and win.getRole() in WINDOW_ROLES:
                return win
    return None


def guarded(fn):
    try:
        return fn()
    except Exception:
        return None


def describe(acc, depth):
    """One element's record; returns (record, children to enter)."""
    states = acc.getState()
    record = {
        "role": acc.getRoleName(),
        "name": acc.name or "",
        "states": [pyatspi.stateToString(s) for s in states.getStates()],
        "depth": depth,
    }
    interfaces = set(guarded(acc.get_interfaces) or [])
    if "Text" in interfaces:
        text = guarded(lambda: acc.queryText())
        if text is not None:
            # Firefox and LibreOffice answer "" past the end: ask for exactly characterCount.
            value = guarded(lambda: text.getText(0, text.characterCount))
            if value is not None:
                record["text"] = value
    if "Value" in interfaces:
        value = guarded(lambda: acc.queryValue().currentValue)
        if value is not None:
            record["value"] = value
    count = guarded(lambda: acc.childCount) or 0
    if states.contains(pyatspi.STATE_MANAGES_DESCENDANTS):
        record["children"] = count
        if "Table" in interfaces:
            table = guarded(lambda: acc.queryTable())
            if table is not None:
                record["rows"] = guarded(lambda: table.nRows)
                record["columns"] = guarded(lambda: table.nColumns)
            return record, 0
        if count > MANAGED_CHILDREN_MAX:
            return record, 0
        record["managed"] = True
    return record, count


def walk(window, max_nodes):
    """The window's elements in document order, at most max_nodes."""
    out = []
    stack = [(window, 0)]
    while stack and len(out) < max_nodes:
        acc, depth = stack.pop()
        try:
            record, count = describe(acc, depth)
        except Exception:  # gone between listing and reading
            continue
        out.append(record)
        kids = []
        for i in range(count):
            child = guarded(lambda: acc.getChildAtIndex(i))
            if child is not None:
                kids.append((child, depth + 1))
        stack.extend(reversed(kids))
    return out


def with_window(args, answer):
    """Find the window (waiting up to --wait-ms) and print answer(window), or fail."""
    # A frozen application among the others costs CALL_TIMEOUT_MS per look, not libdbus's 25 s.
    pyatspi.setTimeout(CALL_TIMEOUT_MS, CALL_TIMEOUT_MS)
    deadline = time.monotonic() + args.wait_ms / 1000
    while True:
        window = guarded(lambda: find_window(args.app, args.title))
        result = answer(window) if window is not None else None
        if result is not None:
            print(json.dumps(result))
            return 0
        if time.monotonic() >= deadline:
            if window is None:
                fail("window not found", app=args.app, title=args.title)
            fail("element not found", app=args.app, title=args.title, role=getattr(args, "role", None), name=getattr(args, "name", None))
        time.sleep(0.1)


def read(args):
    return with_window(args, lambda window: {"elements": walk(window, args.max_nodes)})


def find(args):
    def answer(window):
        hits = [e for e in walk(window, args.max_nodes) if e["role"] == args.role and (args.name is None or e["name"] == args.name)]
        if len(hits) <= args.nth:
            return None
        hit = dict(hits[args.nth])
        del hit["depth"]
        return hit

    return with_window(args, answer)


def first_table(acc, depth=0):
    """The first table under acc, never entering one that manages its descendants (it would list 2^31 cells)."""
    if acc.getRole() == pyatspi.ROLE_TABLE:
        return acc
    if depth > 40 or acc.getState().contains(pyatspi.STATE_MANAGES_DESCENDANTS):
        return None
    for i in range(acc.childCount):
        child = guarded(lambda: acc.getChildAtIndex(i))
        found = first_table(child, depth + 1) if child is not None else None
        if found is not None:
            return found
    return None


def cell(args):
    """One cell of the window's first table, asked for by row and column (Table.getAccessibleAt): its name and text."""

    def answer(window):
        table = first_table(window)
        if table is None:
            return None
        acc = table.queryTable().getAccessibleAt(args.row, args.column)
        if acc is None:
            return None
        record = {"name": acc.name or ""}
        text = guarded(acc.queryText)
        if text is not None:
            record["text"] = text.getText(0, text.characterCount)
        return record

    return with_window(args, answer)


def ping_once(app, timeout_ms):
    """One round trip to `app` in a thread, bounded by timeout_ms: {ok, ms} or {ok: False, error}."""
    result = {}

    def call():
        t0 = time.perf_counter()
        try:
            Atspi.Accessible.clear_cache(app)
            app.name  # noqa: B018 (a D-Bus call: the cache was just cleared)
            child = app.getChildAtIndex(0)
            if child is not None:
                child.getRole()
            result["ms"] = round((time.perf_counter() - t0) * 1000, 2)
        except Exception as error:
            result["error"] = str(error)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(timeout_ms / 1000)
    if thread.is_alive():
        return {"ok": False, "error": "no answer within %d ms" % timeout_ms}, thread
    if "error" in result:
        return {"ok": False, "error": result["error"]}, None
    return {"ok": True, "ms": result["ms"]}, None


def locate_app(name, timeout_ms):
    """(app, None) found within timeout_ms, or (None, why); each app gets half of it to say its name, so one frozen app cannot use it all."""
    pyatspi.setTimeout(max(50, timeout_ms // 2), max(50, timeout_ms // 2))
    found, silent = {}, []
    deadline = time.monotonic() + timeout_ms / 1000

    def look():
        # Again while time is left: an app that was busy a moment ago (or just starting) may answer now.
        while True:
            silent.clear()
            found["app"] = find_app(name, silent)
            if found["app"] is not None or time.monotonic() + 0.1 >= deadline:
                return
            time.sleep(0.1)

    thread = threading.Thread(target=look, daemon=True)
    thread.start()
    thread.join(timeout_ms / 1000)
    if thread.is_alive():
        return None, "the applications did not all say their names within %d ms (silent pids %s)" % (timeout_ms, silent)
    if found.get("app") is None:
        return None, "application not found" + (" (silent pids %s)" % silent if silent else "")
    # libatspi's own call timeout too, so a stuck call ends soon after we stop waiting for it.
    pyatspi.setTimeout(timeout_ms, timeout_ms)
    return found["app"], None


def ping(args):
    started = time.perf_counter()
    app, why = locate_app(args.app, args.timeout_ms)
    if app is None:
        print(json.dumps({"ok": False, "error": why}))
        sys.stdout.flush()
        os._exit(0)
    left = max(1, args.timeout_ms - int((time.perf_counter() - started) * 1000))
    answer, _stuck = ping_once(app, left)
    print(json.dumps(answer))
    sys.stdout.flush()
    os._exit(0)


def watch(args):
    app, why = locate_app(args.app, args.timeout_ms)
    if app is None:
        fail(why, app=args.app)
    times, errors, max_stall_ms = [], [], 0
    end = time.monotonic() + args.for_ms / 1000
    while time.monotonic() < end:
        tick = time.monotonic()
        answer, stuck = ping_once(app, args.timeout_ms)
        if answer["ok"]:
            times.append(answer["ms"])
        else:
            errors.append(answer["error"])
        if stuck is not None:
            # libatspi is not thread-safe: wait for the stuck call (the watch's end at most) before the next.
            while stuck.is_alive() and time.monotonic() < end + args.timeout_ms / 1000:
                stuck.join(0.05)
            max_stall_ms = max(max_stall_ms, round((time.monotonic() - tick) * 1000))
            if stuck.is_alive():
                break
        time.sleep(max(0.0, args.interval_ms / 1000 - (time.monotonic() - tick)))
    ordered = sorted(times)
    p95 = ordered[min(len(ordered) - 1, math.ceil(0.95 * len(ordered)) - 1)] if ordered else None
    summary = {"pings": len(times) + len(errors), "failures": len(errors), "max_ms": ordered[-1] if ordered else None, "p95_ms": p95}
    print(json.dumps({**summary, "max_stall_ms": max_stall_ms, "errors": errors[:5]}))
    sys.stdout.flush()
    os._exit(0)


def main(argv):
    args = parse_args(argv)
    return {"read": read, "find": find, "cell": cell, "ping": ping, "watch": watch}[args.mode](args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
