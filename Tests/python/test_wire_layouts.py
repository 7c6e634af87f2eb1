"""The wire's layouts are spelled once per language: python/retrolua/_layout.py (one field list builds each
struct and dtype), Sources/Control/ControlBinaryLayout.swift (the host) and Sources/RetroluaBatch/
retrolua_batch.c (the trainer's side in C). Every field's offset and size must agree across the three; the
C side is compiled with offsetof, so its compiler's padding is what is compared. No emulator runs.
Run with `build/venv/bin/python -m pytest Tests/python/test_wire_layouts.py`."""

import ctypes
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tokenize

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from retrolua import _batch, _lanes, _layout, _native, _protocol  # noqa: E402

SWIFT = os.path.join(ROOT, "Sources", "Control", "ControlBinaryLayout.swift")
C_SOURCE = os.path.join(ROOT, "Sources", "RetroluaBatch", "retrolua_batch.c")
LAYOUTS = {"Request": _layout.REQUEST, "Reply": _layout.REPLY, "PreprocessOptions": _layout.PREPROCESS_OPTIONS,
           "Join": _layout.JOIN, "Region": _layout.REGION, "Lane": _layout.LANE}


def _snake(name):
    return re.sub(r"(?<=[a-z])([A-Z])", r"_\1", name).lower()


def _swift_layouts():
    """Each `enum` of ControlBinaryLayout: its fields ({name: (offset, size)}), its size and other constants."""
    layouts, current = {}, None
    with open(SWIFT) as file:
        for line in file:
            opened = re.match(r"\s+enum (\w+) \{", line)
            field = re.match(r"\s+static let (\w+) = WireField\((\d+), (\d+)\)", line)
            constant = re.match(r"\s+static let (\w+) = (\d+)$", line.split("//")[0].rstrip())
            if opened:
                current = layouts[opened.group(1)] = {"fields": {}, "constants": {}}
            elif field:
                current["fields"][_snake(field.group(1))] = (int(field.group(2)), int(field.group(3)))
            elif constant:
                current["constants"][constant.group(1)] = int(constant.group(2))
    return layouts


def test_swift_spells_every_layout_as_python_does():
    swift = _swift_layouts()
    assert sorted(swift) == sorted(LAYOUTS)
    for name, layout in LAYOUTS.items():
        python = {field: (layout.offsets[field], layout.sizes[field]) for field in layout.offsets}
        assert swift[name]["fields"] == python, name
        assert swift[name]["constants"]["size"] == layout.size, name
    assert swift["Lane"]["constants"]["maxInfo"] == _layout.MAX_INFO


def test_the_python_spellings_come_from_the_field_lists():
    assert _protocol.REQUEST is _layout.REQUEST.struct and _protocol.REPLY is _layout.REPLY.struct
    assert _protocol.PREPROCESS_OPTIONS is _layout.PREPROCESS_OPTIONS.struct and _batch.JOIN is _layout.JOIN.struct
    assert _lanes.REPLY is _layout.REPLY.dtype
    for layout in LAYOUTS.values():  # the struct, the dtype and the named offsets agree
        for name, code in layout.fields:
            assert layout.dtype.fields[name][1] == layout.offsets[name]
            assert layout.dtype.fields[name][0].itemsize == layout.sizes[name]
        assert layout.dtype.itemsize == layout.size
    reply = _layout.REPLY.struct.pack(1, 2, 3, 4, 5, 6, 7, 8, 9, 0.5)
    decoded = np.frombuffer(reply, dtype=_layout.REPLY.dtype)[0]
    assert [decoded[name] for name, _ in _layout.REPLY.fields] == [1, 2, 3, 4, 5, 6, 7, 8, 9, 0.5]


def test_no_bare_layout_offsets_are_left_in_the_python_sides():
    bare = {44, 64, 72, 128, 192, 1024, 1088, 16384, 16456, 20480}
    for module in ("_batch", "_lanes", "_step", "_protocol", "_wire"):
        with open(os.path.join(ROOT, "python", "retrolua", module + ".py")) as file:
            tokens = tokenize.generate_tokens(io.StringIO(file.read()).readline)
            numbers = [(token.start[0], token.string) for token in tokens
                       if token.type == tokenize.NUMBER and re.fullmatch(r"[0-9_]+", token.string)]
        assert [(line, text) for line, text in numbers if int(text.replace("_", "")) in bare] == [], module


def _compiler():
    for name in ("cc", "clang", "gcc"):
        found = shutil.which(name) or shutil.which(name, path="/opt/swift/usr/bin")
        if found:
            return found
    raise AssertionError("no C compiler (cc, clang or gcc) to read retrolua_batch.c's layout with")


def _c_layout(tmp_path):
    """The C side's constants, its reply header's fields and rb_batch's fields, as its compiler lays them out."""
    reply = ", ".join('"%s": [%%zu, %%zu]' % name for name, _ in _layout.REPLY.fields)
    reply_args = ", ".join("offsetof(Reply, %s), sizeof(((Reply *)0)->%s)" % (name, name)
                           for name, _ in _layout.REPLY.fields)
    batch_names = [_c_member(name) for name, _ in _native.Batch._fields_]
    batch = ", ".join('"%s": %%zu' % name for name, _ in _native.Batch._fields_)
    batch_args = ", ".join("offsetof(rb_batch, %s)" % member for member in batch_names)
    constants = ("HEADER", "GENERATION", "COMPLETED", "WAKE_AT", "REQUEST", "DONE", "TICKET", "LENGTH", "REQUEST_AT",
                 "MASK_AT", "REPLY_AT", "REPLY_SIZE", "MAX_INFO")
    program = tmp_path / "layout.c"
    program.write_text("\n".join([
        '#include "%s"' % C_SOURCE, "#include <stddef.h>", "#include <stdio.h>", "int main(void) {",
        '    printf("{\\"constants\\": {%s}, ", %s);' % (", ".join('\\"%s\\": %%d' % c for c in constants),
                                                     ", ".join("(int)" + c for c in constants)),
        '    printf("\\"reply\\": {%s}, \\"reply_size\\": %%zu, ", %s, sizeof(Reply));'
        % (reply.replace('"', '\\"'), reply_args),
        '    printf("\\"batch\\": {%s}, \\"batch_size\\": %%zu}", %s, sizeof(rb_batch));'
        % (batch.replace('"', '\\"'), batch_args),
        "    return 0;", "}", ""]))
    binary = tmp_path / "layout"
    include = os.path.join(ROOT, "Sources", "RetroluaBatch", "include")
    subprocess.run([_compiler(), "-std=c11", "-I", include, "-o", str(binary), str(program)], check=True,
                   capture_output=True, timeout=120)
    return json.loads(subprocess.run([str(binary)], check=True, capture_output=True, timeout=60).stdout)


def _c_member(name):
    """ctypes' flat names for rb_batch's two copies ("out0") as C's member paths ("copy[0].out")."""
    copy = re.fullmatch(r"(out|offset|pitch|rows|row_bytes)([01])", name)
    return "copy[%s].%s" % (copy.group(2), copy.group(1)) if copy else name


def test_c_spells_the_region_the_lanes_and_the_reply_as_python_does(tmp_path):
    c = _c_layout(tmp_path)
    region, lane, request, reply = _layout.REGION, _layout.LANE, _layout.REQUEST, _layout.REPLY
    assert c["constants"] == {
        "HEADER": region.size, "GENERATION": region.at.generation, "COMPLETED": region.at.completed,
        "WAKE_AT": region.at.wake_at, "REQUEST": lane.at.request, "DONE": lane.at.done, "TICKET": lane.at.ticket,
        "LENGTH": lane.at.length, "REQUEST_AT": lane.at.request_area,
        "MASK_AT": lane.at.request_area + request.size,  # a step's payload: the first port's mask
        "REPLY_AT": lane.at.reply_area, "REPLY_SIZE": reply.size, "MAX_INFO": _layout.MAX_INFO}
    assert c["reply"] == {name: [reply.offsets[name], reply.sizes[name]] for name, _ in reply.fields}
    assert c["reply_size"] == reply.size
    assert lane.width.reply_area == reply.size + _layout.MAX_INFO


def test_c_lays_out_rb_batch_as_the_ctypes_mirror_does(tmp_path):
    c = _c_layout(tmp_path)
    assert c["batch"] == {name: getattr(_native.Batch, name).offset for name, _ in _native.Batch._fields_}
    assert c["batch_size"] == ctypes.sizeof(_native.Batch)
