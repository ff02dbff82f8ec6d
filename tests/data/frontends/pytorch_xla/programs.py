"""The PyTorch/XLA programs behind the samples here, written as its users write them.

Each function builds one lazy graph on the XLA device and returns the tensors the step
materialises (what ``torch_xla.sync()`` / ``xm.mark_step()`` would compile).  The line numbers
matter: the samples' metadata (``XLA_HLO_DEBUG=1``) names them, and tests/test_frontend_pytorch_xla.py
reads them back; append, never insert.
"""

import torch
from torch_xla.experimental.stablehlo_custom_call import place_to_device, place_to_host


def offload_returned(x, w):
    """E1200 on TPU: the activation moved to host is returned as an output declared in device memory."""
    h = torch.tanh(x @ w)
    saved = place_to_host(h)  # OFFLOAD LINE
    return saved, h * 2


def offload_round_trip(x, w):
    """Clean: the activation goes to host and comes back before it is used."""
    h = torch.tanh(x @ w)
    saved = place_to_host(h)
    back = place_to_device(saved)
    return (back * 2).sum(), h


class MLP(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = torch.nn.Linear(256, 512)
        self.fc2 = torch.nn.Linear(512, 10)

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def train_step(model, optimizer, x, y):
    """A plain training step: forward, loss, backward, SGD update (no offload)."""
    optimizer.zero_grad()
    loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss


def train_step_offloaded(model, optimizer, x, y):
    """The same step with its saved activations offloaded to host between forward and backward
    (autograd's saved-tensor hooks: pack moves to host, unpack brings back)."""
    optimizer.zero_grad()
    with torch.autograd.graph.saved_tensors_hooks(place_to_host, place_to_device):
        loss = torch.nn.functional.cross_entropy(model(x), y)
    loss.backward()
    optimizer.step()
    return loss
