"""torchvision-style ResNet blocks with no example call: shapes in the symbols of the code."""
import torch
import torch.nn as nn


def conv3x3(in_planes, out_planes, stride=1, groups=1, dilation=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=3, stride=stride,
                     padding=dilation, groups=groups, bias=False, dilation=dilation)


def conv1x1(in_planes, out_planes, stride=1):
    return nn.Conv2d(in_planes, out_planes, kernel_size=1, stride=stride, bias=False)


class BasicBlock(nn.Module):
    expansion = 1

    def __init__(self, inplanes, planes, stride=1, downsample=None, norm_layer=None):
        super().__init__()
        if norm_layer is None:
            norm_layer = nn.BatchNorm2d
        self.conv1 = conv3x3(inplanes, planes, stride)
        self.bn1 = norm_layer(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = conv3x3(planes, planes)
        self.bn2 = norm_layer(planes)
        self.downsample = downsample
        self.stride = stride

    def forward(self, x):
        identity = x
       #^ Tensor[N, inplanes, H, W]
        out = self.conv1(x)
       #^ Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.bn1(out)
       #^ Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.relu(out)
       #^ Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.conv2(out)
       #^ Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.bn2(out)
       #^ Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
       #^ Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.relu(out)
       #^ Tensor[N, planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        return out


class Bottleneck(nn.Module):
    expansion = 4

    def __init__(self, inplanes, planes, stride=1, downsample=None, groups=1, base_width=64):
        super().__init__()
        width = int(planes * (base_width / 64.0)) * groups
        self.conv1 = conv1x1(inplanes, width)
        self.bn1 = nn.BatchNorm2d(width)
        self.conv2 = conv3x3(width, width, stride, groups)
        self.bn2 = nn.BatchNorm2d(width)
        self.conv3 = conv1x1(width, planes * self.expansion)
        self.bn3 = nn.BatchNorm2d(planes * self.expansion)
        self.relu = nn.ReLU(inplace=True)
        self.downsample = downsample

    def forward(self, x):
        identity = x
       #^ Tensor[N, inplanes, H, W]
        out = self.conv1(x)
       #^ Tensor[N, groups*(base_width*planes//64), H, W]
        out = self.bn1(out)
       #^ Tensor[N, groups*(base_width*planes//64), H, W]
        out = self.relu(out)
       #^ Tensor[N, groups*(base_width*planes//64), H, W]
        out = self.conv2(out)
       #^ Tensor[N, groups*(base_width*planes//64), (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.bn2(out)
       #^ Tensor[N, groups*(base_width*planes//64), (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.relu(out)
       #^ Tensor[N, groups*(base_width*planes//64), (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.conv3(out)
       #^ Tensor[N, 4*planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.bn3(out)
       #^ Tensor[N, 4*planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        if self.downsample is not None:
            identity = self.downsample(x)
        out += identity
       #^ Tensor[N, 4*planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        out = self.relu(out)
       #^ Tensor[N, 4*planes, (H - 1)//stride + 1, (W - 1)//stride + 1]
        return out


class Stem(nn.Module):
    def __init__(self, num_classes=1000):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 64, kernel_size=7, stride=2, padding=3, bias=False)
        self.bn1 = nn.BatchNorm2d(64)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool2d(kernel_size=3, stride=2, padding=1)
        self.avgpool = nn.AdaptiveAvgPool2d((1, 1))
        self.fc = nn.Linear(64, num_classes)

    def forward(self, x):
        x = self.conv1(x)
       #^ Tensor[N, 64, (H + 1)//2, (W + 1)//2]
        x = self.bn1(x)
       #^ Tensor[N, 64, (H + 1)//2, (W + 1)//2]
        x = self.relu(x)
       #^ Tensor[N, 64, (H + 1)//2, (W + 1)//2]
        x = self.maxpool(x)
       #^ Tensor[N, 64, (H + 3)//4, (W + 3)//4]
        x = self.avgpool(x)
       #^ Tensor[N, 64, 1, 1]
        x = torch.flatten(x, 1)
       #^ Tensor[N, 64]
        x = self.fc(x)
       #^ Tensor[N, num_classes]
        return x

# No example call: a training script builds these. The oracle test runs them like this:
# oracle: BasicBlock(8, 8)(torch.randn(2, 8, 12, 10))
# oracle: Bottleneck(16, 8, stride=2, downsample=conv1x1(16, 32, stride=2))(torch.randn(2, 16, 9, 9))
# oracle: Stem(num_classes=7)(torch.randn(3, 3, 40, 36))
