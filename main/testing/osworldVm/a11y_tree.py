"""The accessibility tree as OSWorld's in-VM server writes it for GET /accessibility: every
application of the AT-SPI desktop, depth first, one XML element per accessible named by its role
(spaces as "-"), with `name`, `st:<state>="true"`, `attr:<attribute>`, `cp:screencoord`/`cp:size`
(for visible, showing accessibles), `val:value|min|max|step`, `act:<action>_desc|_kb`, and the text
as element text; under a `desktop-frame` root. Printed on stdout as XML."""

import sys
import xml.etree.ElementTree as ET

import pyatspi

NS = {
    "st": "https://accessibility.ubuntu.example.org/ns/state",
    "attr": "https://accessibility.ubuntu.example.org/ns/attributes",
    "cp": "https://accessibility.ubuntu.example.org/ns/component",
    "doc": "https://accessibility.ubuntu.example.org/ns/document",
    "docattr": "https://accessibility.ubuntu.example.org/ns/document/attributes",
    "txt": "https://accessibility.ubuntu.example.org/ns/text",
    "val": "https://accessibility.ubuntu.example.org/ns/value",
    "act": "https://accessibility.ubuntu.example.org/ns/action",
}
for prefix, uri in NS.items():
    ET.register_namespace(prefix, uri)
MAX_DEPTH = 50
MAX_WIDTH = 1024


def q(prefix, name):
    return "{%s}%s" % (NS[prefix], name)


def node_xml(node, depth):
    attrs = {"name": node.name or ""}
    for st in node.getState().getStates():
        name = pyatspi.StateType._enum_lookup[st].split("_", 1)[1].lower()
        if name:
            attrs[q("st", name)] = "true"
    try:
        for k, v in (node.get_attributes() or {}).items():
            if k:
                attrs[q("attr", k)] = v
    except Exception:
        pass
    if attrs.get(q("st", "visible")) == "true" and attrs.get(q("st", "showing")) == "true":
        try:
            bbox = node.queryComponent().getExtents(pyatspi.XY_SCREEN)
            attrs[q("cp", "screencoord")] = str((bbox.x, bbox.y))
            attrs[q("cp", "size")] = str((bbox.width, bbox.height))
        except NotImplementedError:
            pass
    text = ""
    try:
        t = node.queryText()
        text = t.getText(0, t.characterCount).replace("\ufffc", "").replace("\ufffd", "")
    except NotImplementedError:
        pass
    try:
        v = node.queryValue()
        for name, get in (("value", lambda: v.currentValue), ("min", lambda: v.minimumValue), ("max", lambda: v.maximumValue), ("step", lambda: v.minimumIncrement)):
            try:
                attrs[q("val", name)] = str(get())
            except Exception:
                pass
    except NotImplementedError:
        pass
    try:
        a = node.queryAction()
        for i in range(a.nActions):
            name = a.getName(i).replace(" ", "-")
            attrs[q("act", name + "_desc")] = a.getDescription(i)
            attrs[q("act", name + "_kb")] = a.getKeyBinding(i)
    except NotImplementedError:
        pass
    role = (node.getRoleName().strip() or "unknown").replace(" ", "-")
    el = ET.Element(role, attrs)
    if text:
        el.text = text
    if depth < MAX_DEPTH:
        try:
            for i, child in enumerate(node):
                if i == MAX_WIDTH:
                    break
                if child is not None:
                    el.append(node_xml(child, depth + 1))
        except Exception:
            pass
    return el


def main():
    root = ET.Element("desktop-frame")
    for app in pyatspi.Registry.getDesktop(0):
        if app is not None:
            try:
                root.append(node_xml(app, 1))
            except Exception:
                pass
    sys.stdout.write(ET.tostring(root, encoding="unicode"))


if __name__ == "__main__":
    main()
