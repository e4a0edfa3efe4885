"""A Hugging Face Trainer run the way its users write one (issue 23's check on a real job): a
small BERT from its config (no download), 4096 synthetic sequences of 128 tokens, batch 32:
128 steps an epoch, 2 epochs; evaluation and a checkpoint every 100 steps, the loss every 20.
The Trainer's own console output (its bar, log dicts) is what gpuwatch reads."""
import torch
from transformers import BertConfig, BertForSequenceClassification, Trainer, TrainingArguments



class Synthetic(torch.utils.data.Dataset):
    def __init__(self, n, seed):
        g = torch.Generator().manual_seed(seed)
        self.ids = torch.randint(5, 30000, (n, 128), generator=g)

    def __len__(self):
        return len(self.ids)

    def __getitem__(self, i):
        return {"input_ids": self.ids[i], "attention_mask": torch.ones(128, dtype=torch.long),
                "labels": int(self.ids[i, 0] % 2)}


cfg = BertConfig(hidden_size=512, num_hidden_layers=6, num_attention_heads=8,
                 intermediate_size=2048, num_labels=2)
model = BertForSequenceClassification(cfg)
kw = dict(output_dir="/tmp/hf_bert_out", per_device_train_batch_size=32,
          per_device_eval_batch_size=64, num_train_epochs=2, eval_steps=100, save_steps=100,
          logging_steps=20, report_to=[], bf16=True, dataloader_num_workers=2)
try:
    args = TrainingArguments(eval_strategy="steps", **kw)
except TypeError:  # transformers before 4.41
    args = TrainingArguments(evaluation_strategy="steps", **kw)
Trainer(model=model, args=args, train_dataset=Synthetic(4096, 0),
        eval_dataset=Synthetic(2048, 1)).train()
