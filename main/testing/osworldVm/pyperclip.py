"""A small stand-in for pyperclip inside the test server's "VM": copy() hands the text to a detached
process that owns the X clipboard through GTK and serves it (as xclip does for the real pyperclip)
until another owner takes it, or for at most a minute; paste() reads the clipboard.

With OVERSEER_TEST_CLIPBOARD=lost_on_exit it behaves as the real pyperclip's GTK mode on a VM with
no clipboard manager: the copying process itself owns the clipboard, runs no event loop to serve it,
and takes it away when it ends, so no other process (the application that pastes) ever gets it."""

import os
import subprocess
import sys

_owned = []


def copy(text):
    if os.environ.get("OVERSEER_TEST_CLIPBOARD") == "lost_on_exit":
        import gi
        gi.require_version("Gtk", "3.0")
        gi.require_version("Gdk", "3.0")
        from gi.repository import Gdk, Gtk
        clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
        clipboard.set_text(str(text), -1)
        _owned.append(clipboard)
        return
    served = subprocess.Popen(
        [sys.executable, os.path.abspath(__file__)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, start_new_session=True,
    )
    served.stdin.write(str(text).encode("utf-8"))
    served.stdin.close()
    if served.stdout.readline().strip() != b"owned":
        raise RuntimeError("pyperclip stand-in: the clipboard could not be taken")


def paste():
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")  # else Gdk 4 loads first where GTK 4's typelib is installed
    from gi.repository import Gdk, Gtk
    return Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD).wait_for_text() or ""


def _serve():
    import gi
    gi.require_version("Gtk", "3.0")
    gi.require_version("Gdk", "3.0")
    from gi.repository import Gdk, GLib, Gtk
    text = sys.stdin.buffer.read().decode("utf-8")
    clipboard = Gtk.Clipboard.get(Gdk.SELECTION_CLIPBOARD)
    clipboard.set_text(text, -1)
    changes = {"n": 0}

    def owner_change(_clipboard, _event):
        # The first change is this process taking the clipboard; a later one is another owner.
        changes["n"] += 1
        if changes["n"] > 1:
            Gtk.main_quit()

    clipboard.connect("owner-change", owner_change)
    GLib.timeout_add_seconds(60, Gtk.main_quit)
    sys.stdout.write("owned\n")
    sys.stdout.flush()
    Gtk.main()


if __name__ == "__main__":
    _serve()
