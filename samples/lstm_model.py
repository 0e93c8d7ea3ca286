"""An LSTM text classifier (no diagnostics)."""
import torch
import torch.nn as nn


class LSTMClassifier(nn.Module):
    def __init__(self, vocab_size, embed_dim, hidden_dim, num_classes, num_layers=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab_size, embed_dim)
        self.lstm = nn.LSTM(embed_dim, hidden_dim, num_layers=num_layers, batch_first=True,
                            bidirectional=True)
        self.fc = nn.Linear(2 * hidden_dim, num_classes)

    def forward(self, tokens):
        emb = self.embedding(tokens)
        #     ^ Tensor[8, 12, 16]
        out, (h, c) = self.lstm(emb)
        #     ^ Tensor[4, 8, 24]
        last = out[:, -1, :]
        #          ^ Tensor[8, 48]
        return self.fc(last)


if __name__ == "__main__":
    model = LSTMClassifier(vocab_size=50, embed_dim=16, hidden_dim=24, num_classes=3)
    tokens = torch.randint(0, 50, (8, 12))
    logits = model(tokens)
    # ^ Tensor[8, 3]
