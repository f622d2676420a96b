"""The whole X screen as a PNG on stdout, as OSWorld's server answers GET /screenshot (without the
pointer it paints in: the test desktop's pixels stay exactly the fixture's)."""

import sys

import gi

gi.require_version("Gdk", "3.0")
from gi.repository import Gdk  # noqa: E402

root = Gdk.get_default_root_window()
pixbuf = Gdk.pixbuf_get_from_window(root, 0, 0, root.get_width(), root.get_height())
ok, data = pixbuf.save_to_bufferv("png", [], [])
if not ok:
    sys.exit("the screen could not be encoded")
sys.stdout.buffer.write(data)
