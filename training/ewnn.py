"""The .ewnn weight file (core/noise_net.h): magic "EWNN", u32 format
version, u32 header length, an ASCII header of "key value..." lines, the
float32 payload in PyTorch's layout, and the SHA-256 of every byte before it.
Read here to run the shipped noise network inside the denoiser's training
(its noise map is the denoiser's input), written by both exporters.
"""
import hashlib
import struct

import numpy as np

FORMAT_VERSION = 1


def pack(lines, payload):
    """The file's bytes: header lines (without line ends) and a float32 payload (numpy)."""
    header = ("\n".join(lines) + "\n").encode("ascii")
    body = (b"EWNN" + struct.pack("<II", FORMAT_VERSION, len(header)) + header
            + np.asarray(payload, dtype="<f4").tobytes())
    return body + hashlib.sha256(body).digest()


def read(path):
    """-> (header lines as lists of words, float32 payload, sha256 hex). Checks the
    magic, the format and the checksum, as the C++ loader does."""
    data = open(path, "rb").read()
    if len(data) < 44 or data[:4] != b"EWNN":
        raise ValueError(f"{path}: not an Edgewise network file")
    body, digest = data[:-32], data[-32:]
    if hashlib.sha256(body).digest() != digest:
        raise ValueError(f"{path}: checksum mismatch (damaged file)")
    version, length = struct.unpack("<II", body[4:12])
    if version != FORMAT_VERSION:
        raise ValueError(f"{path}: format {version}, this reader knows {FORMAT_VERSION}")
    header = body[12:12 + length].decode("ascii")
    lines = [line.split() for line in header.splitlines() if line.strip()]
    payload = np.frombuffer(body[12 + length:], dtype="<f4").astype(np.float32)
    return lines, payload, hashlib.sha256(data).hexdigest()


def conv_state(lines, payload, prefix="convs"):
    """The conv layers' weights as a state dict {prefix.K.weight, prefix.K.bias}, in
    the order of the header's "layer conv IN OUT K ..." lines."""
    import torch
    state, at, k = {}, 0, 0
    for words in lines:
        if words[:2] != ["layer", "conv"]:
            continue
        i, o, size = int(words[2]), int(words[3]), int(words[4])
        n = o * i * size * size
        state[f"{prefix}.{k}.weight"] = torch.from_numpy(payload[at:at + n].reshape(o, i, size, size).copy())
        at += n
        state[f"{prefix}.{k}.bias"] = torch.from_numpy(payload[at:at + o].copy())
        at += o
        k += 1
    if at != payload.size:
        raise ValueError(f"payload holds {payload.size} floats, the layers {at}")
    return state
