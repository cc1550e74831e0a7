// Models and transforms in LibTorch: output shapes and parameter counts against the Python
// originals, TorchScript loading, and the study's transforms.
#include <gtest/gtest.h>

#include <ATen/ATen.h>
#include <torch/script.h>

#include "sim/config/config_error.hpp"
#include "calibrate/training/augment_transform.hpp"
#include "calibrate/training/model_factory.hpp"
#include "calibrate/training/transform_factory.hpp"
#include "tests/calibrate/training_test_support.hpp"

namespace edgetwin::calibrate {
namespace {

using training_testing::ScratchDir;

std::vector<std::int64_t> logits_shape(TrainableModel& model, std::vector<std::int64_t> input_shape) {
  model.train(false);
  return model.forward(at::zeros(input_shape)).sizes().vec();
}

// Expected counts are what torch.nn reports for the Python models:
// LeNet-5 (conv 1->6 5x5 pad 2, conv 6->16 5x5, fc 400-120-84-10):
//   156 + 2,416 + 48,120 + 10,164 + 850 = 61,706.
TEST(TrainingModels, LeNet5HasTheClassicParameterCountAndShape) {
  auto model = make_model("lenet5", {}, 10, 1);
  EXPECT_EQ(model->parameter_count(), 61706);
  EXPECT_EQ(logits_shape(*model, {4, 1, 28, 28}), (std::vector<std::int64_t>{4, 10}));
}

// kuangliu/pytorch-cifar ResNet18(): 11,173,962 parameters.
TEST(TrainingModels, ResNet18CifarMatchesKuangliuCount) {
  auto model = make_model("resnet18-cifar", {}, 10, 1);
  EXPECT_EQ(model->parameter_count(), 11173962);
  EXPECT_EQ(logits_shape(*model, {2, 3, 32, 32}), (std::vector<std::int64_t>{2, 10}));
}

// torchvision.models.mobilenet_v3_large(): 5,483,032 parameters with 1000 classes. With 203
// classes only the last linear layer shrinks: 5,483,032 - (1280 + 1) * (1000 - 203).
TEST(TrainingModels, MobileNetV3LargeMatchesTorchvisionCount) {
  auto model = make_model("MobileNetV3-Large", {}, 1000, 1);
  EXPECT_EQ(model->parameter_count(), 5483032);
  EXPECT_EQ(logits_shape(*model, {2, 3, 224, 224}), (std::vector<std::int64_t>{2, 1000}));
  auto gld = make_model("mobilenetv3-large", {}, 203, 1);
  EXPECT_EQ(gld->parameter_count(), 5483032 - 1281 * (1000 - 203));
}

TEST(TrainingModels, UnknownNameListsTheValidOnes) {
  try {
    make_model("vgg16", {}, 10, 1);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("lenet5, resnet18-cifar, mobilenetv3-large"), std::string::npos) << e.what();
  }
}

TEST(TrainingModels, SameSeedGivesSameInitialWeights) {
  auto a = make_model("lenet5", {}, 10, 7);
  auto b = make_model("lenet5", {}, 10, 7);
  auto c = make_model("lenet5", {}, 10, 8);
  EXPECT_TRUE(at::equal(a->parameters().front(), b->parameters().front()));
  EXPECT_FALSE(at::equal(a->parameters().front(), c->parameters().front()));
}

// No Python here to export a model, so the test scripts one in C++: a linear classifier on
// 1 x 28 x 28, saved like torch.jit.save would, then loaded through --model's path.
TEST(TrainingModels, TorchScriptFileTrainsThroughTheSameInterface) {
  ScratchDir dir;
  torch::jit::Module module("Linear784");
  module.register_parameter("weight", at::randn({10, 784}) * 0.01, false);
  module.register_parameter("bias", at::zeros({10}), false);
  module.define(R"(
def forward(self, x):
    return torch.matmul(x.flatten(1), self.weight.t()) + self.bias
)");
  const auto file = dir / "linear.pt";
  module.save(file.string());

  auto model = make_model("ignored", file, 10, 1);
  EXPECT_EQ(model->parameter_count(), 7850);
  EXPECT_EQ(logits_shape(*model, {3, 1, 28, 28}), (std::vector<std::int64_t>{3, 10}));
}

TEST(TrainingModels, UnreadableTorchScriptIsAConfigErrorNamingTheFile) {
  ScratchDir dir;
  const auto file = dir / "broken.pt";
  std::ofstream(file) << "not a zip archive";
  try {
    make_model("lenet5", file, 10, 1);
    FAIL() << "expected ConfigError";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("broken.pt"), std::string::npos) << e.what();
  }
}

Image constant_image(int height, int width, int channels, std::uint8_t value) {
  Image image{height, width, channels, {}};
  image.pixels.assign(static_cast<std::size_t>(height * width * channels), value);
  return image;
}

// ToTensor + Normalize(0.1307, 0.3081) on a pixel of 255: (1 - 0.1307) / 0.3081 = 2.8215.
TEST(TrainingTransforms, MnistIsToTensorThenNormalize) {
  auto transform = make_transform(DatasetFormat::mnist, 224);
  SampleRandom random(1, 0, 0);
  const auto out = transform->apply(constant_image(28, 28, 1, 255), random);
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{1, 28, 28}));
  EXPECT_NEAR(out[0][5][5].item<double>(), (1.0 - 0.1307) / 0.3081, 1e-5);
  EXPECT_TRUE(out.is_contiguous());
}

// HWC in, CHW out: channel c of the output holds channel c of the input.
TEST(TrainingTransforms, CifarKeepsChannelsApart) {
  auto transform = make_transform(DatasetFormat::cifar10, 224);
  Image image = constant_image(32, 32, 3, 0);
  for (std::size_t i = 0; i < image.pixels.size(); i += 3) image.pixels[i + 2] = 255;  // blue only
  SampleRandom random(1, 0, 0);
  const auto out = transform->apply(image, random);
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{3, 32, 32}));
  EXPECT_NEAR(out[0][0][0].item<double>(), (0.0 - 0.4914) / 0.2023, 1e-5);
  EXPECT_NEAR(out[2][0][0].item<double>(), (1.0 - 0.4465) / 0.2010, 1e-5);
}

// A constant grey 128 image stays 128 after crop, resize and flip; Normalize(0.5, 0.5) gives
// 128/255*2-1 = 0.00392; Cutout zeroes one 16 x 16 square (fewer pixels at a border).
TEST(TrainingTransforms, JpegAugmentCropsTo224AndCutsOneSquare) {
  auto transform = make_transform(DatasetFormat::jpeg_folder, 224);
  SampleRandom random(3, 1, 42);
  const auto out = transform->apply(constant_image(256, 300, 3, 128), random);
  EXPECT_EQ(out.sizes().vec(), (std::vector<std::int64_t>{3, 224, 224}));
  const double expected = 128.0 / 255.0 * 2.0 - 1.0;
  const auto zeros = (out == 0).sum().item<std::int64_t>();
  EXPECT_GT(zeros, 0);
  EXPECT_LE(zeros, 3 * 16 * 16);
  const auto kept = (out - expected).abs().lt(1e-4).sum().item<std::int64_t>();
  EXPECT_EQ(kept + zeros, 3 * 224 * 224);
}

TEST(TrainingTransforms, SameSampleSameEpochSameAugmentation) {
  auto transform = make_transform(DatasetFormat::jpeg_folder, 64);
  Image image = constant_image(80, 96, 3, 0);
  for (std::size_t i = 0; i < image.pixels.size(); ++i) image.pixels[i] = static_cast<std::uint8_t>(i * 7);
  SampleRandom r1(5, 2, 9), r2(5, 2, 9), r3(5, 3, 9);
  const auto a = transform->apply(image, r1);
  const auto b = transform->apply(image, r2);
  const auto c = transform->apply(image, r3);
  EXPECT_TRUE(at::equal(a, b));
  EXPECT_FALSE(at::equal(a, c));
}

// torchvision's get_params keeps the box inside the image with an area of 8 %..100 % and a
// ratio in [3/4, 4/3] (or the centre fallback).
TEST(TrainingTransforms, RandomCropBoxStaysInsideTheImage) {
  for (int i = 0; i < 500; ++i) {
    SampleRandom random(11, 0, i);
    const CropBox box = AugmentTransform::random_crop_box(120, 200, random);
    ASSERT_GE(box.top, 0);
    ASSERT_GE(box.left, 0);
    ASSERT_LE(box.top + box.height, 120);
    ASSERT_LE(box.left + box.width, 200);
    ASSERT_GT(box.height * box.width, 0);
  }
}

}  // namespace
}  // namespace edgetwin::calibrate
