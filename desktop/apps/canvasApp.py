#!/usr/bin/python3
"""Canvas fixture for the screen tier's desktop tests (no accessibility needed).

    /usr/bin/python3 desktop/apps/canvasApp.py [--x 100] [--y 100] [--title "Overseer Canvas"]

An undecorated 400x300 window "Overseer Canvas" (a pixbuf, shown 1:1) placed at --x,--y (the test
desktop runs no window manager). It paints four quadrants (top-left red
#ff0000, top-right green #00ff00, bottom-left blue #0000ff, bottom-right
yellow #ffff00) inside a 1-pixel checker border (black where the window
pixel's x+y is even, white where odd). Every event is one JSON line on stdout,
flushed, with root coordinates:

    {"ev": "ready"}                                        once the window is mapped
    {"ev": "press"|"release", "button": B, "n": 1|2|3, "x": X, "y": Y}
    {"ev": "scroll", "dir": "up"|"down"|"left"|"right", "x": X, "y": Y}
    {"ev": "scroll", "dir": "smooth", "dx": DX, "dy": DY, "x": X, "y": Y}   with --smooth only
    {"ev": "key", "keyval": K, "keycode": C, "text": "ж"}  text is "" for keys without one
    {"ev": "keyrelease", "keyval": K, "keycode": C}        so a combo's release order shows
    {"ev": "paste", "text": "日本"}                         Ctrl+V: the clipboard's text (its key line has text "")
"""

import argparse
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import Gdk, GdkPixbuf, GLib, Gtk  # noqa: E402

W, H = 400, 300
QUADRANTS = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]


def emit(obj):
    sys.stdout.write(json.dumps(obj, ensure_ascii=False) + "\n")
    sys.stdout.flush()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--x", type=int, default=100)
    parser.add_argument("--y", type=int, default=100)
    parser.add_argument("--title", default="Overseer Canvas")
    # Smooth scrolling too: a compositor that sends the wheel as a distance only (KWin 5.27 through
    # its portal) reaches a widget that does not ask for smooth scrolling with nothing at all.
    parser.add_argument("--smooth", action="store_true")
    args = parser.parse_args()

    win = Gtk.Window(title=args.title)
    win.set_decorated(False)
    # On Wayland GTK draws the window's frame itself, with rounded top corners: square them, so the
    # pattern's corner pixels are the pattern's (X11 shows the window as it is either way).
    css = Gtk.CssProvider()
    css.load_from_data(b"window, decoration { border-radius: 0; box-shadow: none; margin: 0; }")
    Gtk.StyleContext.add_provider_for_screen(Gdk.Screen.get_default(), css, Gtk.STYLE_PROVIDER_PRIORITY_APPLICATION)
    win.set_resizable(False)
    win.set_default_size(W, H)
    win.set_size_request(W, H)
    win.move(args.x, args.y)
    win.connect("destroy", Gtk.main_quit)

    # The pattern is a pixbuf shown 1:1 (no cairo: python3-gi-cairo is not a desktop package).
    pixels = bytearray(W * H * 3)
    for y in range(H):
        for x in range(W):
            if x in (0, W - 1) or y in (0, H - 1):
                v = 0 if (x + y) % 2 == 0 else 255
                rgb = (v, v, v)
            else:
                rgb = QUADRANTS[(1 if x >= W // 2 else 0) + (2 if y >= H // 2 else 0)]
            o = (y * W + x) * 3
            pixels[o : o + 3] = bytes(rgb)
    pixbuf = GdkPixbuf.Pixbuf.new_from_bytes(GLib.Bytes.new(bytes(pixels)), GdkPixbuf.Colorspace.RGB, False, 8, W, H, W * 3)
    image = Gtk.Image.new_from_pixbuf(pixbuf)
    area = Gtk.EventBox()
    area.add(image)
    area.add_events(
        Gdk.EventMask.BUTTON_PRESS_MASK
        | Gdk.EventMask.BUTTON_RELEASE_MASK
        | Gdk.EventMask.SCROLL_MASK
        | (Gdk.EventMask.SMOOTH_SCROLL_MASK if args.smooth else 0)
    )
    win.add(area)
    state = {"ready": False}

    def mapped(_widget, _event):
        if not state["ready"]:
            state["ready"] = True
            GLib.idle_add(lambda: emit({"ev": "ready"}))
        return False

    counts = {Gdk.EventType.BUTTON_PRESS: 1, Gdk.EventType._2BUTTON_PRESS: 2, Gdk.EventType._3BUTTON_PRESS: 3}

    def button(_widget, event):
        kind = "release" if event.type == Gdk.EventType.BUTTON_RELEASE else "press"
        n = counts.get(event.type, 1)
        emit({"ev": kind, "button": event.button, "n": n, "x": round(event.x_root), "y": round(event.y_root)})
        return True

    dirs = {Gdk.ScrollDirection.UP: "up", Gdk.ScrollDirection.DOWN: "down", Gdk.ScrollDirection.LEFT: "left", Gdk.ScrollDirection.RIGHT: "right"}

    def scroll(_widget, event):
        line = {"ev": "scroll", "dir": dirs.get(event.direction, "smooth"), "x": round(event.x_root), "y": round(event.y_root)}
        if event.direction == Gdk.ScrollDirection.SMOOTH:
            _ok, line["dx"], line["dy"] = event.get_scroll_deltas()
        emit(line)
        return True

    def key(_widget, event):
        cp = Gdk.keyval_to_unicode(event.keyval)
        # Ctrl+V pastes as a text field would: the clipboard's text is what it types (remote screens type non-ASCII text so).
        if event.state & Gdk.ModifierType.CONTROL_MASK and event.keyval in (Gdk.KEY_v, Gdk.KEY_V):
            emit({"ev": "key", "keyval": event.keyval, "keycode": event.hardware_keycode, "text": ""})
            emit({"ev": "paste", "text": Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).wait_for_text() or ""})
            return True
        emit({"ev": "key", "keyval": event.keyval, "keycode": event.hardware_keycode, "text": chr(cp) if cp else ""})
        return True

    def key_release(_widget, event):
        emit({"ev": "keyrelease", "keyval": event.keyval, "keycode": event.hardware_keycode})
        return True

    win.connect("map-event", mapped)  # no "draw" handler: it needs cairo bindings
    area.connect("button-press-event", button)
    area.connect("button-release-event", button)
    area.connect("scroll-event", scroll)
    win.connect("key-press-event", key)
    win.connect("key-release-event", key_release)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
