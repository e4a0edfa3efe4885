#!/usr/bin/env python3
"""Markers from PyTorch Lightning: a callback that records epochs, validation, every N-th step
and the CUDA allocator's statistics into the `gpuwatch run` that wraps the training.

    gpuwatch run -- python3 examples/markers_lightning.py --epochs 3

In your own code: `trainer = Trainer(callbacks=[gpuwatch_callback()])`. Works with the `lightning`
package and with the older `pytorch_lightning` (imported only when the callback is made). The
gpuwatch module is python/gpuwatch.py of this repository (no dependencies)."""
import argparse
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
import gpuwatch  # noqa: E402


def _lightning():
    try:
        import lightning.pytorch as pl
    except ImportError:
        import pytorch_lightning as pl  # the package's name before Lightning 2.0
    return pl


def gpuwatch_callback(every_n_steps=50):
    """A Lightning Callback that writes gpuwatch marks."""
    pl = _lightning()

    class GpuwatchMarks(pl.Callback):
        def on_train_epoch_start(self, trainer, pl_module):
            gpuwatch.mark("epoch", n=trainer.current_epoch + 1, total=trainer.max_epochs)

        def on_train_batch_end(self, trainer, pl_module, outputs, batch, batch_idx):
            if trainer.global_step % every_n_steps == 0:
                loss = outputs.get("loss") if isinstance(outputs, dict) else outputs
                gpuwatch.mark("step", n=trainer.global_step,
                              loss=loss.item() if hasattr(loss, "item") else loss)
                gpuwatch.mark_memory()

        def on_validation_epoch_start(self, trainer, pl_module):
            if not trainer.sanity_checking:
                gpuwatch.mark("validation", epoch=trainer.current_epoch + 1)

        def on_validation_epoch_end(self, trainer, pl_module):
            if not trainer.sanity_checking:
                gpuwatch.mark("validation_end", epoch=trainer.current_epoch + 1)

        def on_fit_end(self, trainer, pl_module):
            gpuwatch.mark_memory("memory_final")

    return GpuwatchMarks()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--epochs", type=int, default=3)
    ap.add_argument("--steps", type=int, default=200)
    args = ap.parse_args()
    try:
        pl = _lightning()
    except ImportError:
        sys.exit("this example needs Lightning: pip install lightning")
    import torch
    from torch.utils.data import DataLoader, TensorDataset

    class Model(pl.LightningModule):
        def __init__(self):
            super().__init__()
            self.net = torch.nn.Sequential(torch.nn.Linear(1024, 4096), torch.nn.ReLU(),
                                           torch.nn.Linear(4096, 10))

        def training_step(self, batch, batch_idx):
            x, y = batch
            return torch.nn.functional.cross_entropy(self.net(x), y)

        def validation_step(self, batch, batch_idx):
            x, y = batch
            self.log("val_loss", torch.nn.functional.cross_entropy(self.net(x), y))

        def configure_optimizers(self):
            return torch.optim.SGD(self.parameters(), lr=0.01)

    def data(n):
        return DataLoader(TensorDataset(torch.randn(n, 1024), torch.randint(0, 10, (n,))),
                          batch_size=128)

    trainer = pl.Trainer(max_epochs=args.epochs, callbacks=[gpuwatch_callback()],
                         enable_progress_bar=False, logger=False, enable_checkpointing=False)
    trainer.fit(Model(), data(args.steps * 128), data(20 * 128))


if __name__ == "__main__":
    main()
