"""Console output of training jobs, written from how each trainer prints (tqdm's meter, YOLOv9
train_dual.py / val_dual.py, ultralytics, Lightning's TQDMProgressBar, Hugging Face Trainer, timm
train.py, Keras' progbar), as a list of (sleep_ms, text). Bars redraw with '\\r' (and tqdm's
ESC[K / ESC[A where they use them); `replay_output.py NAME` prints one with its sleeps.

Each fixture's bars print their own elapsed times, and those are the figures the report must
give back exactly: EXPECT[name] = per epoch (epoch, total, steps, steps_per_s, validation_s)."""

FULL = "\u2588" * 10
HALF = "\u2588" * 5 + " " * 5
K = "\u2501" * 20
HEADER = ("%11s" * 7) % ("Epoch", "GPU_mem", "box_loss", "cls_loss", "dfl_loss", "Instances",
                         "Size")
VAL_DESC = ("%22s" + "%11s" * 6) % ("Class", "Images", "Instances", "P", "R", "mAP50",
                                     "mAP50-95")


def _yolo_row(col, n, total, elapsed):
    desc = ("%11s" * 2 + "%11.4g" * 5) % (col, "5.12G", 1.234, 2.345, 1.111, 45, 640)
    pct = 100 * n // total
    bar = FULL if n == total else (HALF if n else " " * 10)
    return f"{desc}: {pct:3d}%|{bar}| {n}/{total} {elapsed}"


def yolov9():
    """3 epochs of 8 steps: training 00:04, 00:02, 00:08; validation 00:03, 00:01, 00:02; then
    the final evaluation of best.pt (00:05), which is no epoch's."""
    out = []
    for e, (tr, va) in enumerate([(4, 3), (2, 1), (8, 2)]):
        out.append((5, "\n" + HEADER + "\n"))
        out.append((5, "\r  0%|          | 0/8 00:00"))
        out.append((5, "\r" + _yolo_row(f"{e}/2", 0, 8, "00:00")))
        out.append((5, "\r" + _yolo_row(f"{e}/2", 4, 8, f"00:0{tr // 2}")))
        out.append((5, "\r" + _yolo_row(f"{e}/2", 8, 8, f"00:0{tr}")))
        out.append((5, "\n"))
        out.append((5, f"\r{VAL_DESC}:   0%|          | 0/2 00:00"))
        out.append((5, f"\r{VAL_DESC}: 100%|{FULL}| 2/2 00:0{va}"))
        out.append((5, "\n" + ("%22s" + "%11i" * 2 + "%11.3g" * 4) %
                    ("all", 16, 40, 0.5, 0.4, 0.41, 0.25) + "\n"))
        out.append((5, f"Saving checkpoint runs/train/exp/weights/epoch_{e}.pt\n"))
    out.append((5, "\n3 epochs completed in 0.010 hours.\n"))
    out.append((5, f"\r{VAL_DESC}:   0%|          | 0/2 00:00"))
    out.append((5, f"\r{VAL_DESC}: 100%|{FULL}| 2/2 00:05\n"))
    out.append((5, "Results saved to runs/train/exp\n"))
    return out


def ultralytics():
    """1-based rows, tqdm's [elapsed<remaining, rate], the Box(P ...) validation bar, then the
    early-stopping line naming epoch 1."""
    out = []
    for e, (tr, va) in enumerate([(4, 1), (2, 1)]):
        out.append((5, "\n" + HEADER + "\n"))
        out.append((5, "\r" + ("%11s" * 2) % (f"{e + 1}/2", "2.1G") +
                    f"      1.234      2.345      1.111         45        640:   0%|          "
                    f"| 0/8 [00:00<?, ?it/s]"))
        out.append((5, "\r" + ("%11s" * 2) % (f"{e + 1}/2", "2.1G") +
                    f"      1.234      2.345      1.111         45        640: 100%|{FULL}"
                    f"| 8/8 [00:0{tr}<00:00,  {8 / tr:.2f}it/s]\n"))
        box = ("%22s" + "%11s" * 6) % ("Class", "Images", "Instances", "Box(P", "R", "mAP50",
                                        "mAP50-95)")
        out.append((5, f"\r{box}: 100%|{FULL}| 2/2 [00:0{va}<00:00,  2.00it/s]\n"))
        out.append((5, "                   all         16         40      0.658      0.541"
                    "      0.616      0.455\n"))
    out.append((5, "Stopping training early as no improvement observed in last 1 epochs. Best "
                "results observed at epoch 1, best model saved as best.pt.\n"))
    return out


def lightning():
    """A sanity check, 'Epoch 0:' bars whose clock runs on through validation, 'Validation
    DataLoader 0' bars (tqdm at position 1: '\\n' then the bar then ESC[A)."""
    out = [(5, f"\rSanity Checking DataLoader 0: 100%|{FULL}| 2/2 [00:00<00:00, 10.00it/s]")]
    for e, (tr, va) in enumerate([(4, 1), (5, 2)]):
        out.append((5, f"\rEpoch {e}:   0%|          | 0/10 [00:00<?, ?it/s]"))
        out.append((5, f"\rEpoch {e}: 100%|{FULL}| 10/10 [00:0{tr}<00:00, {10 / tr:.2f}it/s, "
                       "v_num=0]"))
        out.append((5, f"\n\rValidation DataLoader 0: 100%|{FULL}| 3/3 [00:0{va}<00:00, "
                       "3.00it/s]\x1b[A"))
        out.append((5, f"\rEpoch {e}: 100%|{FULL}| 10/10 [00:0{tr + va}<00:00, 2.00it/s, "
                       "v_num=0, val_loss=0.5]"))
    out.append((5, "\n`Trainer.fit` stopped: `max_epochs=2` reached.\n"))
    return out


def hf_trainer():
    """One bar over 20 steps (2 epochs of 10), evaluation bars of another total, log dicts."""
    out = [(5, "\r  0%|          | 0/20 [00:00<?, ?it/s]")]
    el = 0
    for e in range(2):
        base = e * 10
        out.append((5, f"\r{(base + 5) * 5:3d}%|{HALF}| {base + 5}/20 [00:{el + 5:02d}<00:10,  "
                       "1.00it/s]"))
        out.append((5, "\n{'loss': 0.6931, 'grad_norm': 1.25, 'learning_rate': 4.5e-05, "
                       f"'epoch': {e + 0.5}}}\n"))
        out.append((5, f"\r{(base + 10) * 5:3d}%|{FULL}| {base + 10}/20 [00:{el + 10:02d}<00:10, "
                       " 1.00it/s]"))
        out.append((5, "\n\r  0%|          | 0/4 [00:00<?, ?it/s]\x1b[A"))
        out.append((5, f"\n\r100%|{FULL}| 4/4 [00:03<00:00,  1.33it/s]\x1b[A"))
        out.append((5, "\n{'eval_loss': 0.52, 'eval_runtime': 3.0, 'eval_samples_per_second': "
                       f"10.0, 'eval_steps_per_second': 1.33, 'epoch': {e + 1}.0}}\n"))
        el += 13  # 10 s of steps, 3 s of evaluation: the bar's clock runs on
        if e == 0:  # the second epoch's first draw: step 11, 1 s after the evaluation
            out.append((5, f"\r 55%|{HALF}| 11/20 [00:{el + 1:02d}<00:09,  1.00it/s]"))
    out.append((5, "\n{'train_runtime': 26.0, 'train_samples_per_second': 6.1, "
                   "'train_steps_per_second': 0.77, 'train_loss': 0.5, 'epoch': 2.0}\n"))
    return out


def timm():
    """'Train: E [idx/updates (pct)]' and 'Test: [idx/last]' lines (no bar clock)."""
    out = []
    for e in range(2):
        for idx in (0, 50, 99):
            out.append((5, f"Train: {e} [{idx:>4d}/100 ({100 * (idx + 1) / 100:>3.0f}%)]  "
                           "Loss: 6.91 (6.91)  Time: 0.100s, 2560.00/s  (0.100s, 2560.00/s)  "
                           "LR: 1.000e-05  Data: 0.010 (0.010)\n"))
        for idx in (0, 9):
            out.append((5, f"Test: [{idx:>4d}/9]  Time: 0.100 (0.100)  Loss:  6.0 ( 6.0)  "
                           "Acc@1:  1.0 (  1.0)  Acc@5:  5.0 (  5.0)\n"))
        out.append((5, "Current checkpoints:\n"
                       f" ('./output/train/checkpoint-{e}.pth.tar', 1.0)\n"))
    return out


def keras():
    """'Epoch 1/2' lines, Keras 3 progbars with '\\r' (bold and colour escapes), the last draw
    after validation with val_ metrics."""
    out = []
    for e, ms in enumerate([100, 50]):
        out.append((5, f"Epoch {e + 1}/2\n"))
        out.append((5, f"\r\x1b[1m 1/50\x1b[0m \x1b[32m{K[:1]}\x1b[0m\x1b[37m{K[1:]}\x1b[0m "
                       f"\x1b[1m5s\x1b[0m {2 * ms}ms/step - loss: 2.3026"))
        out.append((5, f"\r\x1b[1m50/50\x1b[0m \x1b[32m{K}\x1b[0m\x1b[37m\x1b[0m "
                       f"\x1b[1m0s\x1b[0m {ms}ms/step - loss: 0.6"))
        out.append((20, f"\r\x1b[1m50/50\x1b[0m \x1b[32m{K}\x1b[0m\x1b[37m\x1b[0m "
                        f"\x1b[1m6s\x1b[0m {ms}ms/step - loss: 0.6 - val_loss: 0.7\n"))
    return out


FIXTURES = {f.__name__: f for f in (yolov9, ultralytics, lightning, hf_trainer, timm, keras)}

# (epoch, total, steps, steps_per_s, validation_s); None: measured on the wall clock only
EXPECT = {
    "yolov9": [(1, 3, 8, 2.0, 3.0), (2, 3, 8, 4.0, 1.0), (3, 3, 8, 1.0, 2.0)],
    "ultralytics": [(1, 2, 8, 2.0, 1.0), (2, 2, 8, 4.0, 1.0)],
    "lightning": [(1, None, 10, 2.5, 1.0), (2, None, 10, 2.0, 2.0)],
    "hf_trainer": [(1, 2, 10, 1.0, 3.0), (2, 2, 10, 1.0, 3.0)],
    "timm": [(1, None, 100, None, None), (2, None, 100, None, None)],
    "keras": [(1, 2, 50, 10.0, None), (2, 2, 50, 20.0, None)],
}
