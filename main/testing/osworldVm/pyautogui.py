"""A small stand-in for pyautogui inside the OSWorld-compatible test server's "VM" (a private Xvfb
desktop), where pyautogui is not installed. It implements, through xdotool (XTEST), exactly the calls
Overseer's OSWorld screen backend sends, with pyautogui's names, arguments and directions: scroll(n)
is n wheel clicks up (n > 0) or down, hscroll(n) right or left, one X button press per click."""

import collections
import subprocess

FAILSAFE = False
PAUSE = 0
Point = collections.namedtuple("Point", "x y")
Size = collections.namedtuple("Size", "width height")

_BUTTONS = {"left": "1", "middle": "2", "right": "3", 1: "1", 2: "2", 3: "3"}
_KEYS = {
    "enter": "Return", "return": "Return", "esc": "Escape", "escape": "Escape", "backspace": "BackSpace",
    "tab": "Tab", "delete": "Delete", "del": "Delete", "home": "Home", "end": "End", "left": "Left",
    "right": "Right", "up": "Up", "down": "Down", "pageup": "Page_Up", "pagedown": "Page_Down",
    "printscreen": "Print", "insert": "Insert", "apps": "Menu", "space": "space", "shift": "Shift_L",
    "shiftleft": "Shift_L", "shiftright": "Shift_R", "ctrl": "Control_L", "ctrlleft": "Control_L",
    "ctrlright": "Control_R", "capslock": "Caps_Lock", "alt": "Alt_L", "altleft": "Alt_L",
    "altright": "Alt_R", "win": "Super_L", "winleft": "Super_L", "winright": "Super_R",
}
for _n in range(1, 25):
    _KEYS["f%d" % _n] = "F%d" % _n


def _xdotool(*args):
    subprocess.run(["xdotool", *[str(a) for a in args]], check=True)


def _keysym(key):
    if key in _KEYS:
        return _KEYS[key]
    if len(key) == 1 and " " <= key <= "~":
        return "0x%04x" % ord(key)  # XStringToKeysym reads hex keysyms; ASCII keysyms are the code points
    raise ValueError("pyautogui stand-in: unknown key %r" % (key,))


def position():
    out = subprocess.run(["xdotool", "getmouselocation", "--shell"], check=True, capture_output=True, text=True).stdout
    vals = dict(line.split("=", 1) for line in out.split())
    return Point(int(vals["X"]), int(vals["Y"]))


def size():
    w, h = subprocess.run(["xdotool", "getdisplaygeometry"], check=True, capture_output=True, text=True).stdout.split()
    return Size(int(w), int(h))


def moveTo(x=None, y=None, duration=0.0, **_kw):
    if x is not None and y is not None:
        _xdotool("mousemove", int(x), int(y))


def mouseDown(x=None, y=None, button="left", **_kw):
    moveTo(x, y)
    _xdotool("mousedown", _BUTTONS[button])


def mouseUp(x=None, y=None, button="left", **_kw):
    moveTo(x, y)
    _xdotool("mouseup", _BUTTONS[button])


def click(x=None, y=None, clicks=1, interval=0.0, button="left", **_kw):
    moveTo(x, y)
    _xdotool("click", "--repeat", int(clicks), "--delay", int(float(interval) * 1000), _BUTTONS[button])


def scroll(clicks, x=None, y=None, **_kw):
    moveTo(x, y)
    if clicks != 0:
        _xdotool("click", "--repeat", abs(int(clicks)), "--delay", 0, "4" if clicks > 0 else "5")


vscroll = scroll


def hscroll(clicks, x=None, y=None, **_kw):
    moveTo(x, y)
    if clicks != 0:
        _xdotool("click", "--repeat", abs(int(clicks)), "--delay", 0, "7" if clicks > 0 else "6")


def keyDown(key, **_kw):
    _xdotool("keydown", _keysym(key))


def keyUp(key, **_kw):
    _xdotool("keyup", _keysym(key))


def press(keys, presses=1, **_kw):
    for _ in range(presses):
        for key in [keys] if isinstance(keys, str) else keys:
            keyDown(key)
            keyUp(key)


def hotkey(*keys, **_kw):
    for key in keys:
        keyDown(key)
    for key in reversed(keys):
        keyUp(key)


def write(message, interval=0.0, **_kw):
    for i, line in enumerate(message.split("\n")):
        if i > 0:
            press("enter")
        if line != "":
            _xdotool("type", "--delay", 0, "--", line)


typewrite = write
