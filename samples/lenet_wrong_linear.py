"""LeNet on 28x28 input with in_features computed for 32x32 input: a real, common bug."""
import torch
import torch.nn as nn
import torch.nn.functional as F


class LeNet(nn.Module):
    def __init__(self, num_classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, num_classes)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), (2, 2))
        #                        ^ Tensor[8, 6, 24, 24]
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        #   ^ Tensor[8, 16, 4, 4]
        x = x.view(-1, self.num_flat_features(x))
        #   ^ Tensor[8, 256]
        x = F.relu(self.fc1(x))  # error: shape-mismatch; fix: Set in_features to 256
        x = F.relu(self.fc2(x))
        x = self.fc3(x)
        return x

    def num_flat_features(self, x):
        size = x.size()[1:]
        num_features = 1
        for s in size:
            num_features *= s
        return num_features


if __name__ == "__main__":
    net = LeNet()
    images = torch.randn(8, 1, 28, 28)
    logits = net(images)
