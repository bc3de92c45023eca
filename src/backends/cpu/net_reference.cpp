#include "backends/cpu/conv_net.hpp"
#include "backends/cpu/ops_reference.hpp"

namespace framecast::cpu {
namespace {

class ReferenceNet final : public ConvNet {
 public:
  ReferenceNet(const Model& model, const BlockSpec& block)
      : model_(model),
        name_(block.name),
        act_(int(model.tensor(name_ + ".conv0.1.0.weight").shape[0]), block.input_height / 4,
             block.input_width / 4),
        tmp_(act_) {}

  void encode(const Planes& xq) override {
    Planes f8(int(model_.tensor(name_ + ".conv0.0.0.weight").shape[0]), xq.height / 2, xq.width / 2);
    conv(name_ + ".conv0.0.0", name_ + ".conv0.0.1.weight", 2, xq, f8);
    conv(name_ + ".conv0.1.0", name_ + ".conv0.1.1.weight", 2, f8, act_);
    feat0_ = act_;
  }

  void convblocks(int first, int last) override {
    for (int i = first; i < last; ++i) {
      const std::string p = name_ + ".convblock." + std::to_string(i);
      conv(p + ".0", p + ".1.weight", 1, act_, tmp_);
      std::swap(act_, tmp_);
    }
    if (last == 8) add_in_place(act_, feat0_);
  }

  void save_trunk() override { trunk_ = act_; }
  void restore_trunk() override { act_ = trunk_; }
  void film(std::span<const float> scale_shift) override { apply_film(act_, scale_shift); }

  void decode(Planes& tmp8) override { deconv("lastconv", tmp8); }
  void upmask(Planes& logits) override { deconv("upmask", logits); }

  void refine(const Planes& rin, Planes& features) override {
    const int r = model_.shape().refine_width;
    Planes a(r, rin.height, rin.width);
    features = Planes(r, rin.height, rin.width);
    conv("refine.c0", "refine.a0.weight", 1, rin, a);
    conv("refine.c1", "refine.a1.weight", 1, a, features);
    conv("refine.c2", "refine.a2.weight", 1, features, a);
    features = std::move(a);
  }

 private:
  void conv(const std::string& prefix, const std::string& prelu, int stride, const Planes& src,
            Planes& dst) const {
    conv3x3(src, model_.tensor(prefix + ".weight").values.data(),
            model_.tensor(prefix + ".bias").values.data(), model_.tensor(prelu).values.data(),
            stride, Padding::zero, dst);
  }

  // The trunk through the block's deconv `layer` (lastconv, upmask) into plain planes.
  void deconv(const std::string& layer, Planes& out) const {
    const Tensor& bias = model_.tensor(name_ + "." + layer + ".bias");
    out = Planes(int(bias.numel()), act_.height * 2, act_.width * 2);
    deconv4x4s2(act_, model_.tensor(name_ + "." + layer + ".weight").values.data(),
                bias.values.data(), out);
  }

  const Model& model_;
  std::string name_;
  Planes act_, tmp_, feat0_, trunk_;
};

}  // namespace

std::unique_ptr<ConvNet> make_reference_net(const Model& model, const BlockSpec& block) {
  return std::make_unique<ReferenceNet>(model, block);
}

}  // namespace framecast::cpu
