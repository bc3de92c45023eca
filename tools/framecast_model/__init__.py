"""Framecast's network in PyTorch: the reference of the runtime's graph and its model files."""
from .graph import VARIANTS, FramecastNet
from .weights import load_model, read_tensors, save_model, save_safetensors

__all__ = ["VARIANTS", "FramecastNet", "load_model", "read_tensors", "save_model",
           "save_safetensors"]
