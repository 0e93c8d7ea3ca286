"""Batches from torchvision datasets and transforms (modelled by name, nothing is loaded)."""
import torch
import torch.nn as nn
from torch.utils.data import DataLoader
from torchvision import datasets, transforms


def mnist_batches():
    transform = transforms.Compose([transforms.ToTensor(), transforms.Normalize((0.1307,), (0.3081,))])
    train_set = datasets.MNIST("data", train=True, download=True, transform=transform)
    loader = DataLoader(train_set, batch_size=64, shuffle=True)
    for images, labels in loader:
       #^ Tensor[?, 1, 28, 28]
        flat = images.view(images.size(0), -1)
       #^ Tensor[?, 784]
    return flat


def cifar_batches():
    augment = transforms.Compose([
        transforms.RandomCrop(32, padding=4),
        transforms.RandomHorizontalFlip(),
        transforms.Resize(64),
        transforms.Grayscale(num_output_channels=1),
        transforms.ToTensor(),
    ])
    test_set = datasets.CIFAR10("data", train=False, download=True, transform=augment)
    loader = DataLoader(test_set, batch_size=100)
    images, labels = next(iter(loader))
   #^ Tensor[100, 1, 64, 64]
    features = nn.Conv2d(1, 8, 3)(images)
   #^ Tensor[100, 8, 62, 62]
    return features


mnist_batches()
cifar_batches()

# oracle: skip (needs the MNIST and CIFAR10 files and a torchvision that imports beside torch 2.13)
