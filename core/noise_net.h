// The learned noise-map estimator's network: its weight file (.ewnn), the
// loader that refuses anything it cannot run, and the CPU forward pass.
//
// The network is a stack of 2-D convolutions as PyTorch's
// nn.Conv2d(in, out, k, stride=s, padding=k // 2) builds them (zero
// padding, bias), ReLU after each but the last, run on square tiles of
// R'G'B' samples (0..1) taken as sample - 0.5. It gives, per cell of
// cell x cell pixels (cell = the product of the strides), `outputs` numbers
// (the noise map's log-variances). The C++ runs any such stack the file
// describes; it checks only what the forward pass relies on.
//
// File format, little-endian (written by the training code's exporter and
// by serialize_noise_net):
//   4 bytes  "EWNN"
//   u32      format version (kNoiseNetFormat)
//   u32      header length H in bytes
//   H bytes  ASCII lines "key value...", each ending in '\n':
//              model noise-map
//              version 1                  the weights' version (kNoiseNetVersion)
//              input rgb-0.5
//              tile 64                    the tile size it was trained on
//              outputs 18 R0 R1 ...       the count, then one name each
//              layer conv IN OUT K STRIDE relu|none   one line per layer, in order
//              floats N                   the payload's float count
//            any other "key value" line is kept as text (NoiseNet::info)
//   N * 4    float32 payload: per layer, weights [out][in][ky][kx] (PyTorch's
//            layout), then bias [out]
//   32 bytes SHA-256 of every byte before it
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace edgewise {

constexpr int kNoiseNetVersion = 1;  // the weights' version this Edgewise reads
constexpr int kNoiseNetFormat = 1;   // the file format's version
constexpr const char* kNoiseNetModel = "noise-map";
constexpr const char* kNoiseNetInput = "rgb-0.5";

// Every refusal of the loader (one message that names the file and what is
// wrong) and of prepare_noise_net.
class NoiseNetError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A layer's kind. The noise map is all convolutions; the learned
// denoiser's program (denoise_net.h) has the other steps too, each written
// "layer KIND [VALUE]": unshuffle F, shuffle F, map N, save, add, residual.
enum class NetOp { conv, unshuffle, shuffle, map, save, add, residual };

struct NoiseNetLayer {
  NetOp op = NetOp::conv;
  int factor = 0;  // unshuffle and shuffle: the factor; map: its channel count
  int in = 0, out = 0, kernel = 1, stride = 1;
  bool relu = false;
  std::vector<float> weights;  // [out][in][ky][kx]
  std::vector<float> bias;     // [out]
  // The forward pass's copy, made by prepare_noise_net: weights as
  // [ky][kx][in'][out'] and bias as [out'], where out' is out rounded up to
  // 16 and in' the previous layer's out' (the first layer's: in), zeros in
  // the added places. Stale once weights change: prepare again.
  std::vector<float> packed_weights, packed_bias;
};

// A network file's content: the noise map's, or the learned denoiser's
// (denoise_net.h, model "denoiser"), whose loader shares this one's.
struct NoiseNet {
  std::string model = kNoiseNetModel;
  int version = kNoiseNetVersion;
  int tile = 0;
  int cell = 1;  // the product of the strides (prepare_noise_net sets it)
  int outputs = 0;
  std::vector<std::string> output_names;
  std::vector<NoiseNetLayer> layers;
  // The header's other lines, in order: key, then the rest of the line.
  std::vector<std::pair<std::string, std::string>> info;
  std::string sha256_hex;  // of the whole file (load_noise_net)
};

// What a loader accepts: the model's name and weights' version, and the
// checks and packing of its architecture (noise_net.cpp, denoise_net.cpp).
struct NetKind {
  const char* model;
  int version;
  const char* what;  // for messages: "the noise map"
  // What keeps the forward pass from running `net`, or ""; with
  // `weights`, also the weights' sizes and values.
  std::string (*problem)(const NoiseNet& net, bool weights);
  void (*pack)(NoiseNet& net);
};
extern const NetKind kNoiseMapKind;
// The file's bytes read, checked and prepared as a network of `kind`.
NoiseNet parse_network(const std::vector<uint8_t>& bytes, const std::string& name, const NetKind& kind);
NoiseNet load_network(const std::string& path, const NetKind& kind);
// The weights' sizes and values (layers numbered from 1), or "".
std::string weights_problem(const NoiseNet& net);
// A convolution's packed copy (NoiseNetLayer's packed_weights and
// packed_bias) for inputs `in_stride` floats apart.
void pack_conv(NoiseNetLayer& layer, int in_stride);

// Reads, checks and prepares a network file; throws NoiseNetError whose
// message names `path`.
NoiseNet load_noise_net(const std::string& path);
// The same from the file's bytes; `name` stands for the file in messages.
NoiseNet parse_noise_net(const std::vector<uint8_t>& bytes, const std::string& name);

// The file's bytes for `net` as it is (the tests write broken networks
// too): its weights and biases in layer order, "floats" their total, the
// checksum computed here. Throws NoiseNetError for what the format cannot
// hold (a name with a space, a line break in an info value).
std::vector<uint8_t> serialize_noise_net(const NoiseNet& net);
void save_noise_net(const NoiseNet& net, const std::string& path);

// Checks that the forward pass can run `net` (throws NoiseNetError saying
// why not), sets its cell and makes the packed weights. load_noise_net
// calls it; a network built in memory needs it before noise_net_forward.
void prepare_noise_net(NoiseNet& net);

// Multiply-adds of one forward pass over a size x size tile.
int64_t noise_net_macs(const NoiseNet& net, int size);

// The forward pass's instruction sets; automatic: the widest this machine
// runs, capped by EDGEWISE_CPU_ISA (generic, avx2, avx512) as the CPU
// backend's kernels are. A set the machine lacks gives the widest it has
// (tests and benchmarks name each). AVX2 and AVX-512 give the same bits.
enum class NoiseNetIsa { automatic, generic, avx2, avx512 };
NoiseNetIsa noise_net_machine_isa();  // what automatic runs
const char* noise_net_isa_name(NoiseNetIsa isa);

// One thread's working memory for noise_net_forward; reuse it from tile to
// tile (it grows to the largest tile seen).
struct NoiseNetScratch {
  NoiseNetIsa isa = NoiseNetIsa::automatic;
  std::vector<float> buffers[2];
};

// One tile through a prepared network, on the calling thread: tile_rgb is
// size x size interleaved R'G'B' samples (0..1), size a positive multiple of
// net.cell (normally net.tile); out receives (size / cell)^2 * outputs
// floats, cell row by cell row, each cell's outputs together. Throws
// std::invalid_argument for a size that is not such a multiple or a
// network not prepared.
void noise_net_forward(const NoiseNet& net, const float* tile_rgb, int size, float* out, NoiseNetScratch& scratch);

}  // namespace edgewise
