"""An MNIST-style training script: the model file has no example call; the loop feeds it
DataLoader batches (the last batch is smaller), which makes its forward concrete."""
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset, random_split


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 32, 3, 1)
        self.conv2 = nn.Conv2d(32, 64, 3, 1)
        self.fc1 = nn.Linear(9216, 128)
        self.fc2 = nn.Linear(128, 10)

    def forward(self, x):
        x = F.relu(self.conv1(x))
       #^ Tensor[?, 32, 26, 26]
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
       #^ Tensor[?, 64, 12, 12]
        x = torch.flatten(x, 1)
       #^ Tensor[?, 9216]
        x = F.relu(self.fc1(x))
       #^ Tensor[?, 128]
        return F.log_softmax(self.fc2(x), dim=1)


def train(model, loader, optimizer):
    model.train()
    for batch_idx, (data, target) in enumerate(loader):
                   #^ Tensor[64, 1, 28, 28]
        optimizer.zero_grad()
        output = model(data)
       #^ Tensor[64, 10]
        loss = F.nll_loss(output, target)
       #^ Tensor[]
        loss.backward()
        optimizer.step()


def evaluate(model, loader):
    model.eval()
    correct = 0
    with torch.no_grad():
        for data, target in loader:
           #^ Tensor[?, 1, 28, 28]
            output = model(data)
           #^ Tensor[?, 10]
            pred = output.argmax(dim=1, keepdim=True)
           #^ Tensor[?, 1]
            correct += pred.eq(target.view_as(pred)).sum().item()
    return correct


def main():
    images = torch.randn(200, 1, 28, 28)
   #^ Tensor[200, 1, 28, 28]
    labels = torch.randint(0, 10, (200,))
   #^ Tensor[200]
    train_set, test_set = random_split(TensorDataset(images, labels), [0.75, 0.25])
    train_loader = DataLoader(train_set, batch_size=64, shuffle=True, drop_last=True)
    test_loader = DataLoader(test_set, batch_size=32)
    model = Net()
    optimizer = torch.optim.Adadelta(model.parameters(), lr=1.0)
    train(model, train_loader, optimizer)
    return evaluate(model, test_loader)


if __name__ == "__main__":
    main()
