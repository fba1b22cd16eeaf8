#!/usr/bin/env python3
"""make_npy_seeds.py — writes the seed corpus of fuzz_npy (tests/fuzz/corpus/npy/).

Tiny .npy files laid out byte for byte as np.save writes them (magic, version,
header length, the dict with sorted keys, growth padding, 64-byte alignment,
'\\n'), without needing NumPy: one per dtype family, ranks 0 to 3, an empty
array, format versions 1.0, 2.0 and 3.0, and the hand-written variants the
reader accepts (keys in another order, a Python 2 long, fortran_order on one
axis) or refuses with a named diagnostic (Fortran order on two axes, big
endian).  Most shapes equal a parameter of the kernel in fuzz_npy.c, so the
CLI's --in loader reaches its copy.  Run from anywhere; rewrites the files
(the crash reproducers kept beside them are left alone).
"""
import os
import struct

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "npy")


def header_dict(descr, fortran, shape):
    dims = ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "")
    text = "{'descr': '%s', 'fortran_order': %s, 'shape': (%s), }" % (descr, fortran, dims)
    if shape:  # np.save leaves room for the first axis to grow in place
        text += " " * (21 - len(str(shape[0])))
    return text


def npy(dict_text, data, version=1):
    prefix = 10 if version == 1 else 12
    hlen = len(dict_text) + 1
    padded = hlen + (64 - (prefix + hlen) % 64)
    length = struct.pack("<H", padded) if version == 1 else struct.pack("<I", padded)
    return b"\x93NUMPY" + bytes([version, 0]) + length + (dict_text + " " * (padded - hlen) + "\n").encode() + data


def save(name, contents):
    with open(os.path.join(HERE, name), "wb") as f:
        f.write(contents)


def main():
    os.makedirs(HERE, exist_ok=True)
    save("f32_2x3.npy", npy(header_dict("<f4", False, (2, 3)), struct.pack("<6f", 1, -2, 0.5, 3, -0.25, 8)))
    save("i8_5.npy", npy(header_dict("|i1", False, (5,)), struct.pack("<5b", -8, -1, 0, 1, 7)))
    save("bool_1x1x2.npy", npy(header_dict("|b1", False, (1, 1, 2)), b"\x01\x00"))
    save("f64_empty.npy", npy(header_dict("<f8", False, (0,)), b""))
    save("u16_4_v2.npy", npy(header_dict("<u2", False, (4,)), struct.pack("<4H", 0, 1, 255, 65535), version=2))
    save("i64_scalar_v3.npy", npy(header_dict("<i8", False, ()), struct.pack("<q", -3), version=3))
    save("u8_3_fortran.npy", npy(header_dict("|u1", True, (3,)), b"\x00\x07\xff"))
    save("f64_keys_reordered.npy",
         npy("{'shape': (2,), 'fortran_order': False, 'descr': '<f8'}", struct.pack("<2d", 1.5, -0.0)))
    save("i32_long_dims.npy", npy("{'descr': '<i4', 'fortran_order': False, 'shape': (2L, 1L), }",
                                  struct.pack("<2i", -7, 9)))
    save("f32_2x2_fortran_refused.npy", npy(header_dict("<f4", True, (2, 2)), bytes(16)))
    save("i32_big_endian_refused.npy", npy(header_dict(">i4", False, (1,)), b"\x00\x00\x00\x01"))


if __name__ == "__main__":
    main()
