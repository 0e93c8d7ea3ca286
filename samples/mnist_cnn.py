"""The classic MNIST classifier (a correct model: no diagnostics expected)."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.dropout1 = nn.Dropout(0.25)
        self.dropout2 = nn.Dropout(0.5)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = self.conv1(x)
        #   ^ Tensor[64, 32, 26, 26]
        x = F.relu(x)
        x = self.conv2(x)
        #   ^ Tensor[64, 64, 24, 24]
        x = F.relu(x)
        x = F.max_pool2d(x, 2)
        #   ^ Tensor[64, 64, 12, 12]
        x = self.dropout1(x)
        x = torch.flatten(x, 1)
        #   ^ Tensor[64, 9216]
        x = self.fc1(x)
        x = F.relu(x)
        x = self.dropout2(x)
        x = self.fc2(x)
        output = F.log_softmax(x, dim=1)
        #        ^ Tensor[64, 10]
        return output


if __name__ == "__main__":
    model = Net()
    data = torch.randn(64, 1, 28, 28)
    target = torch.randint(0, 10, (64,))
    output = model(data)
    #        ^ Tensor[64, 10]
    loss = F.nll_loss(output, target)
    pred = output.argmax(dim=1, keepdim=True)
    #      ^ Tensor[64, 1]
    correct = pred.eq(target.view_as(pred)).sum()
