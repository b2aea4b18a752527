# SPDX-License-Identifier: GPL-3.0-or-later
"""Gradient compression as Horovod offers it: a class with compress (tensor -> tensor, context) and decompress
(tensor, context -> tensor); Compression.fp16 sends floating-point tensors as float16."""

from __future__ import annotations

from typing import Any, Tuple

import torch


class Compressor:
    """The interface: subclass it with static compress and decompress for a compression of your own."""

    @staticmethod
    def compress(tensor: torch.Tensor) -> Tuple[torch.Tensor, Any]:
        raise NotImplementedError

    @staticmethod
    def decompress(tensor: torch.Tensor, ctx: Any) -> torch.Tensor:
        raise NotImplementedError


class NoneCompressor(Compressor):
    @staticmethod
    def compress(tensor: torch.Tensor) -> Tuple[torch.Tensor, Any]:
        return tensor, None

    @staticmethod
    def decompress(tensor: torch.Tensor, ctx: Any) -> torch.Tensor:
        return tensor


class FP16Compressor(Compressor):
    @staticmethod
    def compress(tensor: torch.Tensor) -> Tuple[torch.Tensor, Any]:
        if tensor.dtype.is_floating_point:
            return tensor.type(torch.float16), tensor.dtype
        return tensor, tensor.dtype

    @staticmethod
    def decompress(tensor: torch.Tensor, ctx: Any) -> torch.Tensor:
        return tensor.type(ctx) if ctx is not None and ctx.is_floating_point else tensor


class Compression:
    none = NoneCompressor
    fp16 = FP16Compressor
