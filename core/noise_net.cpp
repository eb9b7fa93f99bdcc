#include "noise_net.h"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <memory>

#include "sha256.h"

namespace edgewise {

namespace {

constexpr char kMagic[4] = {'E', 'W', 'N', 'N'};
constexpr size_t kPrefixBytes = 12;  // magic, format, header length
constexpr size_t kDigestBytes = 32;
// Bounds beyond anything trained, so that a file's numbers cannot ask for
// absurd memory or overflow the forward pass's indices.
constexpr int kMaxChannels = 4096;
constexpr int kMaxKernel = 31;
constexpr int kMaxTile = 1 << 14;

int round_up16(int channels) { return (channels + 15) / 16 * 16; }

int64_t layer_floats(const NoiseNetLayer& layer) {
  if (layer.op != NetOp::conv) return 0;
  return int64_t(layer.out) * layer.in * layer.kernel * layer.kernel + layer.out;
}

struct OpName {
  NetOp op;
  const char* name;
  bool takes_value;
};
constexpr OpName kOpNames[] = {{NetOp::conv, "conv", false},          {NetOp::unshuffle, "unshuffle", true},
                               {NetOp::shuffle, "shuffle", true},     {NetOp::map, "map", true},
                               {NetOp::save, "save", false},          {NetOp::add, "add", false},
                               {NetOp::residual, "residual", false}};

const char* op_name(NetOp op) {
  for (const OpName& entry : kOpNames)
    if (entry.op == op) return entry.name;
  return "?";
}

// The noise map's architecture (layers numbered from 1): a stack of
// convolutions from R'G'B' to its outputs.
std::string noise_map_problem(const NoiseNet& net, bool weights) {
  const auto& layers = net.layers;
  if (layers.empty()) return "it has no layers";
  int cell = 1;
  for (size_t i = 0; i < layers.size(); ++i) {
    const NoiseNetLayer& layer = layers[i];
    const std::string name = "layer " + std::to_string(i + 1);
    if (layer.op != NetOp::conv)
      return name + " is a " + op_name(layer.op) + " step; the noise map is a stack of convolutions";
    if (layer.in < 1 || layer.in > kMaxChannels || layer.out < 1 || layer.out > kMaxChannels)
      return name + " has " + std::to_string(layer.in) + " input and " + std::to_string(layer.out) +
             " output channels (1 to " + std::to_string(kMaxChannels) + " each)";
    if (i == 0 && layer.in != 3)
      return "its first layer takes " + std::to_string(layer.in) + " channels, not the 3 of R'G'B'";
    if (i > 0 && layer.in != layers[i - 1].out)
      return name + " takes " + std::to_string(layer.in) + " channels but layer " + std::to_string(i) + " gives " +
             std::to_string(layers[i - 1].out);
    if (layer.kernel < 1 || layer.kernel > kMaxKernel || layer.kernel % 2 == 0)
      return name + "'s kernel is " + std::to_string(layer.kernel) + " (an odd size from 1 to " +
             std::to_string(kMaxKernel) + ")";
    if (layer.stride != 1 && layer.stride != 2)
      return name + "'s stride is " + std::to_string(layer.stride) + " (1 or 2)";
    if (layer.stride == 2) {
      cell *= 2;
      if (cell > kMaxTile) return "its strides shrink a tile by more than " + std::to_string(kMaxTile);
    }
  }
  if (weights) {
    const std::string problem = weights_problem(net);
    if (!problem.empty()) return problem;
  }
  if (layers.back().relu) return "its last layer ends in relu (the outputs are log-variances: no activation)";
  if (net.outputs != int(net.output_names.size()))
    return "it counts " + std::to_string(net.outputs) + " outputs but names " + std::to_string(net.output_names.size());
  if (layers.back().out != net.outputs)
    return "its last layer gives " + std::to_string(layers.back().out) + " channels for " +
           std::to_string(net.outputs) + " outputs";
  if (net.tile < 1 || net.tile > kMaxTile || net.tile % cell != 0)
    return "its tile is " + std::to_string(net.tile) + ", not a positive multiple of its cell (" +
           std::to_string(cell) + " pixels) up to " + std::to_string(kMaxTile);
  return "";
}

void pack_noise_map(NoiseNet& net) {
  int in_stride = net.layers.front().in;  // the first layer reads R'G'B' as they come
  net.cell = 1;
  for (NoiseNetLayer& layer : net.layers) {
    pack_conv(layer, in_stride);
    net.cell *= layer.stride;
    in_stride = round_up16(layer.out);
  }
}

// ---- Reading ----

uint32_t read_u32(const uint8_t* p) {
  return uint32_t(p[0]) | uint32_t(p[1]) << 8 | uint32_t(p[2]) << 16 | uint32_t(p[3]) << 24;
}

float read_f32(const uint8_t* p) {
  const uint32_t bits = read_u32(p);
  float value;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

bool parse_count(const std::string& word, int64_t max, int64_t& value) {
  if (word.empty() || word.size() > 18) return false;
  for (char c : word)
    if (c < '0' || c > '9') return false;
  const auto [end, error] = std::from_chars(word.data(), word.data() + word.size(), value);
  return error == std::errc() && end == word.data() + word.size() && value <= max;
}

bool parse_int(const std::string& word, int& value) {
  int64_t wide = 0;
  if (!parse_count(word, 0x7fffffff, wide)) return false;
  value = int(wide);
  return true;
}

// The header's content, and the first line it could not read (keeping on,
// so that the model and version are known even in a header this version
// does not understand).
struct Header {
  std::string model, input, problem;
  int version = -1, tile = -1, outputs = -1;
  int64_t floats = -1;
  std::vector<std::string> output_names;
  std::vector<NoiseNetLayer> layers;
  std::vector<std::pair<std::string, std::string>> info;
  bool seen_model = false, seen_version = false, seen_input = false, seen_tile = false, seen_outputs = false,
       seen_floats = false;
};

// Why `words` (key first) is not a line of the header, or "".
std::string read_line(const std::vector<std::string>& words, const std::string& rest, Header& header) {
  const std::string& key = words[0];
  const size_t values = words.size() - 1;
  auto single = [&](bool& seen) -> std::string {
    if (seen) return "a second \"" + key + "\" line";
    seen = true;
    return values == 1 ? "" : "\"" + key + "\" takes one value";
  };
  std::string why;
  if (key == "model") {
    if ((why = single(header.seen_model)).empty()) header.model = words[1];
  } else if (key == "version") {
    if ((why = single(header.seen_version)).empty() && !parse_int(words[1], header.version))
      why = "the version is not a whole number";
  } else if (key == "input") {
    if ((why = single(header.seen_input)).empty()) header.input = words[1];
  } else if (key == "tile") {
    if ((why = single(header.seen_tile)).empty() && !parse_int(words[1], header.tile))
      why = "the tile is not a whole number";
  } else if (key == "floats") {
    if ((why = single(header.seen_floats)).empty() && !parse_count(words[1], int64_t(1) << 40, header.floats))
      why = "the float count is not a whole number";
  } else if (key == "outputs") {
    if (header.seen_outputs) return "a second \"outputs\" line";
    header.seen_outputs = true;
    if (!parse_int(words[1], header.outputs)) return "the output count is not a whole number";
    if (size_t(header.outputs) != values - 1)
      return "it counts " + words[1] + " outputs but names " + std::to_string(values - 1);
    header.output_names.assign(words.begin() + 2, words.end());
  } else if (key == "layer") {
    NoiseNetLayer layer;
    for (const OpName& entry : kOpNames)
      if (words[1] == entry.name && entry.op != NetOp::conv) {
        layer.op = entry.op;
        if (values != (entry.takes_value ? 2u : 1u) ||
            (entry.takes_value && (!parse_int(words[2], layer.factor) || layer.factor < 1)))
          return std::string("a ") + entry.name + " step is \"layer " + entry.name +
                 (entry.takes_value ? " N\" (N a positive whole number)" : "\"");
        header.layers.push_back(std::move(layer));
        return "";
      }
    if (values != 6 || words[1] != "conv") return "a layer is \"layer conv IN OUT KERNEL STRIDE relu|none\"";
    if (!parse_int(words[2], layer.in) || !parse_int(words[3], layer.out) || !parse_int(words[4], layer.kernel) ||
        !parse_int(words[5], layer.stride))
      return "a layer's channels, kernel and stride are whole numbers";
    if (words[6] != "relu" && words[6] != "none") return "a layer's activation is relu or none";
    layer.relu = words[6] == "relu";
    header.layers.push_back(std::move(layer));
  } else {
    header.info.emplace_back(key, rest);
  }
  return why;
}

Header read_header(const uint8_t* text, size_t size) {
  Header header;
  size_t start = 0;
  for (int number = 1; start < size; ++number) {
    size_t end = start;
    while (end < size && text[end] != '\n') ++end;
    const std::string line(reinterpret_cast<const char*>(text) + start, end - start);
    start = end + 1;
    std::string why;
    for (char c : line)
      if (c != '\t' && (c < 0x20 || c > 0x7e)) why = "it holds a byte that is not printable ASCII";
    std::vector<std::string> words;
    size_t rest_at = std::string::npos;
    for (size_t at = 0; at < line.size();) {
      if (line[at] == ' ' || line[at] == '\t') {
        ++at;
        continue;
      }
      const size_t word_end = line.find_first_of(" \t", at);
      if (words.size() == 1) rest_at = at;
      words.push_back(line.substr(at, word_end == std::string::npos ? std::string::npos : word_end - at));
      at = word_end == std::string::npos ? line.size() : word_end;
    }
    if (words.empty() && why.empty()) continue;  // a blank line
    if (why.empty() && words.size() < 2) why = "a key without a value";
    if (why.empty()) why = read_line(words, line.substr(rest_at), header);
    if (!why.empty() && header.problem.empty())
      header.problem =
          "header line " + std::to_string(number) + " (\"" + line.substr(0, 80) + "\") is not understood: " + why;
  }
  return header;
}

}  // namespace

NoiseNet parse_network(const std::vector<uint8_t>& bytes, const std::string& name, const NetKind& kind) {
  auto fail = [&](const std::string& what) { return NoiseNetError(name + " " + what); };
  const size_t size = bytes.size();
  if (size < sizeof kMagic || std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0)
    throw fail("is not an Edgewise network file (it does not begin with \"EWNN\")");
  if (size < kPrefixBytes)
    throw fail("is truncated: it ends within its first " + std::to_string(kPrefixBytes) + " bytes");
  const uint32_t format = read_u32(&bytes[4]);
  if (format != kNoiseNetFormat)
    throw fail("is in network file format " + std::to_string(format) + "; this Edgewise reads format " +
               std::to_string(kNoiseNetFormat));
  const uint64_t header_bytes = read_u32(&bytes[8]);
  if (kPrefixBytes + header_bytes + kDigestBytes > size)
    throw fail("is truncated: its header alone is " + std::to_string(header_bytes) + " bytes, the file " +
               std::to_string(size));
  Header header = read_header(&bytes[kPrefixBytes], size_t(header_bytes));

  // Truncation before the checksum: a file cut short fails its checksum too,
  // and "truncated" says more.
  if (header.floats >= 0) {
    const uint64_t expected = kPrefixBytes + header_bytes + 4 * uint64_t(header.floats) + kDigestBytes;
    if (size != expected)
      throw fail(std::string(size < expected ? "is truncated: " : "is damaged: ") + std::to_string(size) +
                 " bytes where its header describes " + std::to_string(expected));
  }
  const Sha256Digest digest = sha256(bytes.data(), size - kDigestBytes);
  if (std::memcmp(digest.data(), &bytes[size - kDigestBytes], kDigestBytes) != 0)
    throw fail("is damaged: its checksum does not match");

  // The model and version before the rest: another model's or version's
  // header may hold lines this one does not read.
  auto missing = [&](const char* key) { return fail("has no \"" + std::string(key) + "\" line in its header"); };
  if (!header.model.empty() && header.model != kind.model)
    throw fail("holds a \"" + header.model + "\" model; this Edgewise reads " + kind.what + " (model " + kind.model +
               ")");
  if (header.seen_version && header.version >= 0 && header.version != kind.version)
    throw fail("was made for version " + std::to_string(header.version) + "; this Edgewise reads version " +
               std::to_string(kind.version));
  if (!header.problem.empty()) throw NoiseNetError(name + ": " + header.problem);
  if (!header.seen_model) throw missing("model");
  if (!header.seen_version) throw missing("version");
  if (!header.seen_input) throw missing("input");
  if (!header.seen_tile) throw missing("tile");
  if (!header.seen_outputs) throw missing("outputs");
  if (!header.seen_floats) throw missing("floats");
  if (header.input != kNoiseNetInput)
    throw fail("takes its input as \"" + header.input + "\"; this Edgewise gives " + kNoiseNetInput);

  NoiseNet net;
  net.model = header.model;
  net.version = header.version;
  net.tile = header.tile;
  net.outputs = header.outputs;
  net.output_names = std::move(header.output_names);
  net.layers = std::move(header.layers);
  net.info = std::move(header.info);
  const std::string problem = kind.problem(net, false);
  if (!problem.empty()) throw fail("describes a network this Edgewise cannot run: " + problem);
  int64_t needed = 0;
  for (const NoiseNetLayer& layer : net.layers) needed += layer_floats(layer);
  if (needed != header.floats)
    throw fail("holds " + std::to_string(header.floats) + " floats where its layers need " + std::to_string(needed));

  const uint8_t* payload = &bytes[kPrefixBytes + header_bytes];
  for (size_t l = 0; l < net.layers.size(); ++l) {
    NoiseNetLayer& layer = net.layers[l];
    if (layer.op != NetOp::conv) continue;
    layer.weights.resize(size_t(layer_floats(layer) - layer.out));
    layer.bias.resize(size_t(layer.out));
    for (std::vector<float>* values : {&layer.weights, &layer.bias})
      for (size_t j = 0; j < values->size(); ++j, payload += 4) {
        (*values)[j] = read_f32(payload);
        if (!std::isfinite((*values)[j]))
          throw fail("holds a " + std::string(values == &layer.bias ? "bias" : "weight") +
                     " that is not a finite number (layer " + std::to_string(l + 1) + ", number " + std::to_string(j) +
                     ")");
      }
  }
  kind.pack(net);
  const Sha256Digest whole = sha256(bytes.data(), size);
  net.sha256_hex = sha256_hex(whole);
  return net;
}

NoiseNet load_network(const std::string& path, const NetKind& kind) {
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "rb"), &std::fclose);
  if (!file) throw NoiseNetError("cannot read the network file " + path + ": " + std::strerror(errno));
  std::vector<uint8_t> bytes;
  uint8_t chunk[1 << 16];
  size_t got;
  while ((got = std::fread(chunk, 1, sizeof chunk, file.get())) > 0) bytes.insert(bytes.end(), chunk, chunk + got);
  if (std::ferror(file.get()))
    throw NoiseNetError("cannot read the network file " + path + ": " + std::strerror(errno));
  return parse_network(bytes, path, kind);
}

const NetKind kNoiseMapKind = {kNoiseNetModel, kNoiseNetVersion, "the noise map", noise_map_problem, pack_noise_map};

NoiseNet parse_noise_net(const std::vector<uint8_t>& bytes, const std::string& name) {
  return parse_network(bytes, name, kNoiseMapKind);
}

NoiseNet load_noise_net(const std::string& path) { return load_network(path, kNoiseMapKind); }

std::string weights_problem(const NoiseNet& net) {
  for (size_t i = 0; i < net.layers.size(); ++i) {
    const NoiseNetLayer& layer = net.layers[i];
    const std::string name = "layer " + std::to_string(i + 1);
    if (layer.op != NetOp::conv) {
      if (!layer.weights.empty() || !layer.bias.empty()) return name + " is a " + op_name(layer.op) + " step with weights";
      continue;
    }
    if (int64_t(layer.weights.size()) != layer_floats(layer) - layer.out || int(layer.bias.size()) != layer.out)
      return name + " holds " + std::to_string(layer.weights.size()) + " weights and " +
             std::to_string(layer.bias.size()) + " biases where its shape needs " +
             std::to_string(layer_floats(layer) - layer.out) + " and " + std::to_string(layer.out);
    for (size_t j = 0; j < layer.weights.size(); ++j)
      if (!std::isfinite(layer.weights[j])) return name + "'s weight " + std::to_string(j) + " is not a finite number";
    for (size_t j = 0; j < layer.bias.size(); ++j)
      if (!std::isfinite(layer.bias[j])) return name + "'s bias " + std::to_string(j) + " is not a finite number";
  }
  return "";
}

void pack_conv(NoiseNetLayer& layer, int in_stride) {
  const int k = layer.kernel, out_stride = round_up16(layer.out);
  layer.packed_weights.assign(size_t(k) * k * in_stride * out_stride, 0.0f);
  layer.packed_bias.assign(size_t(out_stride), 0.0f);
  for (int o = 0; o < layer.out; ++o) {
    layer.packed_bias[size_t(o)] = layer.bias[size_t(o)];
    for (int i = 0; i < layer.in; ++i)
      for (int ky = 0; ky < k; ++ky)
        for (int kx = 0; kx < k; ++kx)
          layer.packed_weights[((size_t(ky) * k + kx) * in_stride + i) * out_stride + o] =
              layer.weights[((size_t(o) * layer.in + i) * k + ky) * k + kx];
  }
}

// ---- Writing ----

namespace {

void put_u32(std::vector<uint8_t>& bytes, uint32_t value) {
  for (int i = 0; i < 4; ++i) bytes.push_back(uint8_t(value >> (8 * i)));
}

void put_floats(std::vector<uint8_t>& bytes, const std::vector<float>& values) {
  for (float value : values) {
    uint32_t bits;
    std::memcpy(&bits, &value, sizeof bits);
    put_u32(bytes, bits);
  }
}

// A word of the header: printable ASCII without spaces.
void check_word(const std::string& word, const char* what) {
  bool ok = !word.empty();
  for (char c : word) ok = ok && c > 0x20 && c < 0x7f;
  if (!ok) throw NoiseNetError(std::string("a network file cannot hold the ") + what + " \"" + word + "\"");
}

}  // namespace

std::vector<uint8_t> serialize_noise_net(const NoiseNet& net) {
  check_word(net.model, "model name");
  std::string header = "model " + net.model + "\nversion " + std::to_string(net.version) + "\ninput " + kNoiseNetInput +
                       "\ntile " + std::to_string(net.tile) + "\noutputs " + std::to_string(net.outputs);
  for (const std::string& name : net.output_names) {
    check_word(name, "output name");
    header += " " + name;
  }
  header += "\n";
  size_t floats = 0;
  for (const NoiseNetLayer& layer : net.layers) {
    if (layer.op != NetOp::conv) {
      header += std::string("layer ") + op_name(layer.op);
      if (layer.op == NetOp::unshuffle || layer.op == NetOp::shuffle || layer.op == NetOp::map)
        header += " " + std::to_string(layer.factor);
      header += "\n";
      continue;
    }
    header += "layer conv " + std::to_string(layer.in) + " " + std::to_string(layer.out) + " " +
              std::to_string(layer.kernel) + " " + std::to_string(layer.stride) + (layer.relu ? " relu\n" : " none\n");
    floats += layer.weights.size() + layer.bias.size();
  }
  header += "floats " + std::to_string(floats) + "\n";
  for (const auto& [key, value] : net.info) {
    check_word(key, "key");
    for (const char* reserved : {"model", "version", "input", "tile", "outputs", "layer", "floats"})
      if (key == reserved) throw NoiseNetError("an info line cannot take the key \"" + key + "\"");
    for (char c : value)
      if (c != '\t' && (c < 0x20 || c > 0x7e))
        throw NoiseNetError("a network file cannot hold the value of \"" + key + "\" (not one line of ASCII)");
    header += key + " " + value + "\n";
  }

  std::vector<uint8_t> bytes(kMagic, kMagic + sizeof kMagic);
  put_u32(bytes, kNoiseNetFormat);
  put_u32(bytes, uint32_t(header.size()));
  bytes.insert(bytes.end(), header.begin(), header.end());
  for (const NoiseNetLayer& layer : net.layers) {
    put_floats(bytes, layer.weights);
    put_floats(bytes, layer.bias);
  }
  const Sha256Digest digest = sha256(bytes.data(), bytes.size());
  bytes.insert(bytes.end(), digest.begin(), digest.end());
  return bytes;
}

void save_noise_net(const NoiseNet& net, const std::string& path) {
  const std::vector<uint8_t> bytes = serialize_noise_net(net);
  std::unique_ptr<FILE, int (*)(FILE*)> file(std::fopen(path.c_str(), "wb"), &std::fclose);
  if (!file) throw NoiseNetError("cannot write the network file " + path + ": " + std::strerror(errno));
  if (std::fwrite(bytes.data(), 1, bytes.size(), file.get()) != bytes.size() || std::fflush(file.get()) != 0)
    throw NoiseNetError("cannot write the network file " + path + ": " + std::strerror(errno));
}

void prepare_noise_net(NoiseNet& net) {
  const std::string problem = noise_map_problem(net, true);
  if (!problem.empty()) throw NoiseNetError("the noise network cannot run: " + problem);
  pack_noise_map(net);
}

int64_t noise_net_macs(const NoiseNet& net, int size) {
  int64_t macs = 0;
  for (const NoiseNetLayer& layer : net.layers) {
    size /= layer.stride;
    macs += int64_t(size) * size * layer.out * layer.in * layer.kernel * layer.kernel;
  }
  return macs;
}

}  // namespace edgewise
