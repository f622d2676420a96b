#!/usr/bin/python3
"""The peer of the bench: a pyatspi walk of one window, reading the fields the helper returns.

Run with Debian's Python (python3-pyatspi):

    /usr/bin/python3 bench/pyatspiWalk.py (--title T | --pid P) [--max-nodes 5000]
        [--max-children 5000] [--repeat 11] [--order bfs|dfs] [--fields full|text]

DBUS_SESSION_BUS_ADDRESS and DISPLAY (from the test desktop's env) tell libatspi where the
accessibility bus is. The window is found once (timed separately as find_ms) among the
applications of ``pyatspi.Registry.getDesktop(0)``: a top-level child of an application whose
name equals --title, or, with --pid alone (frames without a name, e.g. gtk3-widget-factory), the
showing top-level frame of that process.

Every iteration walks the window from its frame, breadth-first by default (the helper's walk is
breadth-first too, so under a node limit both sides select the same upper levels), and reads for
every node: role, name, state set, extents (screen coordinates), accessible id, value (Value
interface current value, or Text interface text for editable text), action names (Action
interface), interface list, and children (at most --max-children per node). It stops at
--max-nodes nodes. ``--fields text`` reads the same minus extents: the fields of the helper's
default text answer, which shows no rectangles (``--fields full``, the default, matches a read
with rects).

All iterations run in this one process with pyatspi's default settings (pyatspi 2.46's
setCacheLevel is a no-op; libatspi keeps its own per-object cache): iteration 1 is "cold" (a
fresh client), later ones are "repeated" and may profit from libatspi's cache. That is the peer's
real behaviour and is reported as such.

Prints one JSON object on stdout; diagnostics go to stderr.
"""

import argparse
import json
import statistics
import sys
import time
from collections import deque

import pyatspi

WINDOW_ROLES = {
    pyatspi.ROLE_FRAME,
    pyatspi.ROLE_WINDOW,
    pyatspi.ROLE_DIALOG,
    pyatspi.ROLE_ALERT,
    pyatspi.ROLE_FILE_CHOOSER,
}


def parse_args(argv):
    parser = argparse.ArgumentParser(description="pyatspi peer walk for the Overseer bench")
    parser.add_argument("--title", default=None, help="accessible name of the top-level window")
    parser.add_argument("--pid", type=int, default=None, help="process id of the application")
    parser.add_argument("--max-nodes", type=int, default=5000)
    parser.add_argument("--max-children", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=11, help="walks in this process (1 cold + repeat-1 repeated)")
    parser.add_argument("--order", choices=("bfs", "dfs"), default="bfs")
    parser.add_argument("--fields", choices=("full", "text"), default="full", help="full: with extents; text: without")
    parser.add_argument("--find-timeout", type=float, default=15.0, help="seconds to wait for the window")
    parser.add_argument(
        "--skip-managed",
        action="store_true",
        help="never enter an object that manages its descendants with more than 5000 children (a LibreOffice sheet has 2^31), as Orca does",
    )
    args = parser.parse_args(argv)
    if args.title is None and args.pid is None:
        parser.error("give --title or --pid")
    if args.repeat < 1 or args.max_nodes < 1 or args.max_children < 1:
        parser.error("--repeat, --max-nodes and --max-children must be at least 1")
    return args


def find_window(title, pid):
    """The frame of the application: by name (and pid when given), or the showing frame of pid."""
    desktop = pyatspi.Registry.getDesktop(0)
    candidates = []
    for i in range(desktop.childCount):
        try:
            app = desktop.getChildAtIndex(i)
            if app is None:
                continue
            if pid is not None and app.get_process_id() != pid:
                continue
            for j in range(app.childCount):
                win = app.getChildAtIndex(j)
                if win is None or win.getRole() not in WINDOW_ROLES:
                    continue
                if title is not None:
                    if win.name == title:
                        return win
                    continue
                showing = win.getState().contains(pyatspi.STATE_SHOWING)
                candidates.append((showing, win))
        except Exception as error:  # an application that went away or does not answer
            print("find: skipped an application: %s" % error, file=sys.stderr)
    showing = [w for s, w in candidates if s]
    if len(showing) >= 1:
        return showing[0]
    return candidates[0][1] if candidates else None


def read_node(acc, errors, with_extents):
    """Reads every field of one node (extents only when asked); returns (record, children count)."""
    node = {}

    def guard(field, fn):
        try:
            node[field] = fn()
        except Exception:
            errors[field] = errors.get(field, 0) + 1

    guard("role", acc.getRole)
    guard("name", lambda: acc.name)
    guard("states", lambda: [int(s) for s in acc.getState().getStates()])
    guard("interfaces", acc.get_interfaces)
    ifaces = set(node.get("interfaces") or [])
    if with_extents and "Component" in ifaces:
        def extents():
            e = acc.queryComponent().getExtents(pyatspi.DESKTOP_COORDS)
            return [e.x, e.y, e.width, e.height]
        guard("extents", extents)
    guard("accessible_id", acc.get_accessible_id)
    if "Value" in ifaces:
        guard("value", lambda: acc.queryValue().currentValue)
    elif "Text" in ifaces and ("EditableText" in ifaces or pyatspi.STATE_EDITABLE in (node.get("states") or [])):
        guard("value", lambda: acc.queryText().getText(0, -1))
    if "Action" in ifaces:
        def actions():
            action = acc.queryAction()
            return [action.getName(i) for i in range(action.nActions)]
        guard("actions", actions)
    count = 0
    try:
        count = acc.childCount
    except Exception:
        errors["children"] = errors.get("children", 0) + 1
    return node, count


def node_key(acc):
    """(bus name, object path): AT-SPI's identity of an object."""
    return (acc.app.bus_name if acc.app is not None else "", acc.path)


def walk(root, max_nodes, max_children, order, with_extents, skip_managed=False):
    """One walk from the window frame; returns (records, error counts)."""
    errors = {}
    records = []
    seen = set()
    pending = deque([root])
    take = pending.popleft if order == "bfs" else pending.pop
    seen.add(node_key(root))
    while pending and len(records) < max_nodes:
        acc = take()
        node, count = read_node(acc, errors, with_extents)
        records.append(node)
        if skip_managed and count > 5000 and int(pyatspi.STATE_MANAGES_DESCENDANTS) in (node.get("states") or []):
            count = 0
        kids = []
        for i in range(min(max(count, 0), max_children)):
            try:
                child = acc.getChildAtIndex(i)
            except Exception:
                errors["children"] = errors.get("children", 0) + 1
                continue
            if child is None:
                continue
            key = node_key(child)
            if key in seen:
                continue
            seen.add(key)
            kids.append(child)
        if order == "bfs":
            pending.extend(kids)
        else:
            pending.extend(reversed(kids))  # pop() then takes the first child first
    return records, errors


def main(argv):
    args = parse_args(argv)
    started = time.perf_counter()
    deadline = started + args.find_timeout
    window = None
    while window is None:
        window = find_window(args.title, args.pid)
        if window is None:
            if time.perf_counter() > deadline:
                print(json.dumps({"error": "window not found", "title": args.title, "pid": args.pid}))
                return 2
            time.sleep(0.1)
    find_ms = (time.perf_counter() - started) * 1000

    iterations = []
    for _ in range(args.repeat):
        t0 = time.perf_counter()
        records, errors = walk(window, args.max_nodes, args.max_children, args.order, args.fields == "full", args.skip_managed)
        ms = (time.perf_counter() - t0) * 1000
        iterations.append({"ms": round(ms, 2), "nodes": len(records), "errors": errors})

    repeated = [it["ms"] for it in iterations[1:]]
    out = {
        "peer": "pyatspi",
        "pyatspi": "Debian python3-pyatspi 2.46 (module __version__ %s)" % (getattr(pyatspi, "__version__", None),),
        "window": {"name": window.name, "role": window.getRoleName(), "pid": window.get_process_id()},
        "order": args.order,
        "max_nodes": args.max_nodes,
        "max_children": args.max_children,
        "cache": "pyatspi defaults (setCacheLevel not called; it is a no-op in pyatspi 2.46); libatspi's own cache applies",
        "find_ms": round(find_ms, 2),
        "iterations": iterations,
        "cold_ms": iterations[0]["ms"],
        "repeated_ms_median": round(statistics.median(repeated), 2) if repeated else None,
        "node_count": iterations[0]["nodes"],
        "fields_mode": args.fields,
        "fields": ["role", "name", "states"]
        + (["extents(DESKTOP_COORDS)"] if args.fields == "full" else [])
        + ["accessible_id", "value|text(editable)", "actions(getName)", "interfaces", "children"],
        "note": "iteration 1 is cold (fresh process); the rest are repeated walks in the same process",
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
