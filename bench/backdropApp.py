#!/usr/bin/python3
"""A full-screen backdrop for the screen bench: shows an image 1:1 at 0,0.

    /usr/bin/python3 bench/backdropApp.py --image FILE.png

An undecorated window "Overseer Backdrop" the size of the image, at 0,0 (the test desktop runs no
window manager, so windows mapped later, such as the canvas app, stay on top of it). It gives every
screenshot pipeline the same busy screen to capture: a bare Xvfb screen is nearly flat, and a flat
screen flatters every encoder. Prints {"ev": "ready"} once mapped.
"""

import argparse
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("GdkPixbuf", "2.0")
from gi.repository import GdkPixbuf, GLib, Gtk  # noqa: E402


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--image", required=True)
    args = parser.parse_args()

    pixbuf = GdkPixbuf.Pixbuf.new_from_file(args.image)
    w, h = pixbuf.get_width(), pixbuf.get_height()
    win = Gtk.Window(title="Overseer Backdrop")
    win.set_decorated(False)
    win.set_resizable(False)
    win.set_accept_focus(False)
    win.set_default_size(w, h)
    win.set_size_request(w, h)
    win.move(0, 0)
    win.connect("destroy", Gtk.main_quit)
    win.add(Gtk.Image.new_from_pixbuf(pixbuf))
    state = {"ready": False}

    def mapped(_widget, _event):
        if not state["ready"]:
            state["ready"] = True
            GLib.idle_add(lambda: sys.stdout.write(json.dumps({"ev": "ready"}) + "\n") or sys.stdout.flush())
        return False

    win.connect("map-event", mapped)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
