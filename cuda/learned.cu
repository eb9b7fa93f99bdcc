// The learned filter's band kernel on the GPU (learned_cuda.h).
#include "learned_cuda.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "denoise_net_cuda.h"
#include "device_resources.h"
#include "image_shape.h"
#include "learned.h"
#include "learned_denoise.h"
#include "learned_math.h"
#include "learned_noise.h"
#include "noise_net_cuda.h"

namespace edgewise::cuda {

namespace {

constexpr int kThreads = 256;
// The denoiser's column tiles: cores this wide (plus its reach either
// side: 1.125 times the work at 1024), so that a band's workspace grows
// with its rows, not with the image's width.
constexpr int kCoreColumns = 1024;
// Noise tiles run together (their activations: 2 x 64 KiB floats each, so
// 64 MiB for 128, a fixed cost of every band: 512 took 256 MiB, more than
// a modest GPU budget holds beside the bands themselves).
constexpr int kNoiseTileChunk = 128;

#define EW_GRID_STRIDE(i, count)                                                               \
  for (size_t i = size_t(blockIdx.x) * blockDim.x + threadIdx.x; i < size_t(count); \
       i += size_t(gridDim.x) * blockDim.x)

unsigned blocks_for(size_t count) { return unsigned(std::max<size_t>(1, std::min<size_t>((count + kThreads - 1) / kThreads, 65535 * 8))); }


__device__ const float* band_row(const DeviceBand& band, int plane, int image_row) {
  return band.plane(plane) + size_t(image_row - band.first_row) * size_t(band.width) + band.pad;
}

// Noise tiles k0 .. k0 + n - 1 of the band's tile rows (tiles_x a row, from
// tile row tile_row0), CHW, from the image extended by mirroring.
__global__ void noise_tiles_kernel(DeviceBand band, int colour, int width, int height, int tile, int tiles_x,
                                   int tile_row0, int k0, int n, float* out) {
  const int area = tile * tile;
  EW_GRID_STRIDE(i, size_t(n) * 3 * area) {
    const int x = int(i % tile), y = int(i / tile % tile), c = int(i / area % 3), k = k0 + int(i / (3 * size_t(area)));
    const int tx = k % tiles_x, ty = tile_row0 + k / tiles_x;
    out[i] = band_row(band, colour == 3 ? c : 0, mirrored_index(ty * tile + y, height))[mirrored_index(tx * tile + x, width)];
  }
}

// A chunk's cells (each tile's per_side x per_side cells, row by row) into
// the band's cells (rows from tile_row0's first, cells_x a row).
__global__ void place_cells_kernel(const float* chunk, int n, int k0, int tiles_x, int per_side, int outputs,
                                   int cells_x, float* cells) {
  EW_GRID_STRIDE(i, size_t(n) * per_side * per_side * outputs) {
    const int o = int(i % outputs);
    const size_t cell = i / outputs;
    const int k = k0 + int(cell / (per_side * per_side)), p = int(cell % (per_side * per_side));
    const int row = (k / tiles_x) * per_side + p / per_side, column = (k % tiles_x) * per_side + p % per_side;
    cells[(size_t(row) * cells_x + column) * outputs + o] = chunk[i];
  }
}

struct CellValues {
  float v[kNoiseMapOutputs];
};

__global__ void fill_cells_kernel(float* cells, size_t count, CellValues values) {
  EW_GRID_STRIDE(i, count * kNoiseMapOutputs) cells[i] = values.v[i % kNoiseMapOutputs];
}

// scale_map_cells (core/learned_denoise.h) on each cell.
__global__ void scale_cells_kernel(float* cells, size_t count, double luminance, double colour) {
  constexpr int kBoxes = kNoiseMapOutputs / 6;
  const double a2 = luminance * luminance, b2 = colour * colour;
  const double mix[3][3] = {{1.0 / 3, 1.0 / 2, 1.0 / 6}, {1.0 / 3, 0.0, 4.0 / 6}, {1.0 / 3, 1.0 / 2, 1.0 / 6}};
  EW_GRID_STRIDE(i, count * kBoxes) {
    float* cell = cells + (i / kBoxes) * kNoiseMapOutputs;
    const int s = int(i % kBoxes);
    const double v[3] = {exp(double(cell[3 * kBoxes + s])), exp(double(cell[4 * kBoxes + s])),
                         exp(double(cell[5 * kBoxes + s]))};
    for (int p = 0; p < 3; ++p) {
      const double before = mix[p][0] * v[0] + mix[p][1] * v[1] + mix[p][2] * v[2];
      const double after = mix[p][0] * a2 * v[0] + (mix[p][1] * v[1] + mix[p][2] * v[2]) * b2;
      cell[p * kBoxes + s] += float(log(after / before));
    }
    cell[3 * kBoxes + s] += float(log(a2));
    cell[4 * kBoxes + s] += float(log(b2));
    cell[5 * kBoxes + s] += float(log(b2));
  }
}

// A denoiser tile's R'G'B' (w x h, interleaved) at (x0, top) of the extended image.
__global__ void rgb_tile_kernel(DeviceBand band, int colour, int width, int height, int x0, int top, int w, int h,
                                float* rgb) {
  EW_GRID_STRIDE(i, size_t(w) * h * 3) {
    const int c = int(i % 3);
    const size_t p = i / 3;
    const int x = int(p % w), y = int(p / w);
    rgb[i] = band_row(band, colour == 3 ? c : 0, mirrored_index(top + y, height))[mirrored_index(x0 + x, width)];
  }
}

struct MapArgs {
  const float* cells;
  int first_cell_row, cells_x, cells_y, n;
  double per_cell;
  float shift, offset, scale;
};

// The tile's map input: half-resolution pixels [x0, x0 + w) x [y0, y0 + h), as core's map_input.
__global__ void map_tile_kernel(MapArgs a, int x0, int y0, int w, int h, float* map) {
  EW_GRID_STRIDE(i, size_t(w) * h * a.n) {
    const int c = int(i % a.n);
    const size_t p = i / a.n;
    const int x = int(p % w), y = int(p / w);
    int ya, yb, xa, xb;
    float ly, lx;
    map_cell_taps(a.per_cell, y0 + y, a.cells_y, ya, yb, ly);
    map_cell_taps(a.per_cell, x0 + x, a.cells_x, xa, xb, lx);
    auto at = [&](int cx, int cy) { return a.cells[(size_t(cy - a.first_cell_row) * a.cells_x + cx) * a.n + c]; };
    map[i] = map_value(at(xa, ya), at(xb, ya), at(xa, yb), at(xb, yb), lx, ly, a.shift, a.offset, a.scale);
  }
}

// Output rows of the core [cx0, cx1) from the tile's result at (x0, top):
// clamped to 0..1, grey the mean of the three, alpha from the input.
__global__ void output_kernel(const float* result, int w, int x0, int top, int cx0, int cx1, DeviceOutput output,
                              DeviceBand band, int colour, bool alpha) {
  const int columns = cx1 - cx0;
  EW_GRID_STRIDE(i, size_t(output.rows) * columns) {
    const int x = cx0 + int(i % columns), row = int(i / columns), y = output.first_row + row;
    const float* r = result + (size_t(y - top) * w + (x - x0)) * 3;
    const float v[3] = {fminf(fmaxf(r[0], 0.0f), 1.0f), fminf(fmaxf(r[1], 0.0f), 1.0f), fminf(fmaxf(r[2], 0.0f), 1.0f)};
    const size_t at = size_t(row) * output.row_stride + x;
    if (colour == 3)
      for (int c = 0; c < 3; ++c) output.plane(c)[at] = v[c];
    else
      output.plane(0)[at] = (v[0] + v[1] + v[2]) / 3.0f;
    if (alpha) output.plane(colour)[at] = band_row(band, colour, y)[x];
  }
}

__global__ void copy_kernel(DeviceBand band, DeviceOutput output, int planes) {
  EW_GRID_STRIDE(i, size_t(planes) * output.rows * output.width) {
    const int x = int(i % output.width), row = int(i / output.width % output.rows), p = int(i / (size_t(output.width) * output.rows));
    output.plane(p)[size_t(row) * output.row_stride + x] = band_row(band, p, output.first_row + row)[x];
  }
}

// What a band [out0, out1) reads and holds: core's learned_band, and the
// widest denoiser tile.
struct Geometry : LearnedBand {
  int width = 0, height = 0, reach = 0, r = 1;
  int tile_width = 0;
};

Geometry geometry(const LearnedPlan& plan, int out0, int out1) {
  const DenoiseNet& d = *plan.denoiser;
  Geometry g;
  static_cast<LearnedBand&>(g) = learned_band(d, plan.noise_net ? plan.noise_net->tile : 0, plan.shape.width,
                                              plan.shape.height, out0, out1);
  g.width = plan.shape.width;
  g.height = plan.shape.height;
  g.reach = denoise_net_reach(d);
  g.r = d.map_resolution;
  g.tile_width = std::min(g.pw, kCoreColumns + 2 * g.reach);
  return g;
}

// Device memory a band takes, in pieces of 256-byte multiples.
struct Need {
  size_t cells = 0, noise_input = 0, noise_cells = 0, noise_work = 0, rgb = 0, map = 0, result = 0, work = 0;
  size_t total() const { return cells + noise_input + noise_cells + noise_work + rgb + map + result + work; }
};

size_t rounded(size_t bytes) { return (bytes + 255) / 256 * 256; }

Need need(const LearnedPlan& plan, const Geometry& g, const DeviceDenoiseNet& denoiser, const DeviceNoiseNet* noise) {
  const DenoiseNet& d = *plan.denoiser;
  Need n;
  n.cells = rounded(size_t(g.cells_x) * g.cell_rows * d.map_channels * sizeof(float));
  if (noise) {
    const int t = noise->net().tile, per_side = t / d.map_cell;
    const int tiles = std::min(kNoiseTileChunk, (g.pw / t) * (g.tile_row1 - g.tile_row0));
    n.noise_input = rounded(size_t(tiles) * 3 * t * t * sizeof(float));
    n.noise_cells = rounded(size_t(tiles) * per_side * per_side * noise->net().outputs * sizeof(float));
    n.noise_work = rounded(noise->workspace_bytes(tiles));
  }
  const int h = g.bottom - g.top, w = g.tile_width;
  n.rgb = rounded(size_t(w) * h * 3 * sizeof(float));
  n.map = rounded(size_t(w / g.r) * (h / g.r) * d.map_channels * sizeof(float));
  n.result = n.rgb;
  n.work = rounded(denoiser.workspace_bytes(w, h));
  return n;
}

// Every image row the band's work reads (mirrored) lies in the band: the
// denoiser's rows, and the noise tiles' where `tile` (0: no noise network).
void check_rows(const DeviceBand& band, const Geometry& g, int tile) {
  auto held = [&](int padded_row) {
    const int y = mirrored_index(padded_row, g.height);
    return y >= band.first_row && y < band.first_row + band.rows;
  };
  const int first = tile ? std::min(g.top, g.tile_row0 * tile) : g.top;
  const int last = tile ? std::max(g.bottom, g.tile_row1 * tile) : g.bottom;
  for (int y = first; y < last; ++y)
    if (!held(y)) throw BackendError("learned: the band lacks image row " + std::to_string(mirrored_index(y, g.height)));
}

// The networks on the GPU, made once per process, network and device: making
// them (the weights packed and uploaded, 11 MB for the denoiser) took 40 ms
// of every run before, twice with learned_device_cost's, most of an 800 x
// 600 preview's 92 ms. The entries hold the host networks too, so that an
// address is never reused while its entry lives; the few most recent are
// kept (a test's random networks would otherwise pile up on the GPU). The
// cache is never destroyed: its memory goes with the process's context,
// where a destructor at exit could run after the CUDA runtime has gone.
struct DeviceNets {
  std::shared_ptr<const DeviceDenoiseNet> denoiser;
  std::shared_ptr<const DeviceNoiseNet> noise;  // null: the white map
};

DeviceNets device_nets(const LearnedPlan& plan) {
  struct Entry {
    int device;
    std::shared_ptr<const DenoiseNet> denoiser;
    std::shared_ptr<const NoiseNet> noise;
    DeviceNets nets;
  };
  constexpr size_t kKept = 4;
  static std::mutex* mutex = new std::mutex;
  static std::deque<Entry>* entries = new std::deque<Entry>;
  int device = 0;
  check(cudaGetDevice(&device), "finding the current GPU");
  const std::lock_guard<std::mutex> lock(*mutex);
  for (auto it = entries->begin(); it != entries->end(); ++it)
    if (it->device == device && it->denoiser == plan.denoiser && it->noise == plan.noise_net) {
      Entry found = *it;
      entries->erase(it);
      entries->push_front(found);
      return found.nets;
    }
  Entry made{device, plan.denoiser, plan.noise_net, {}};
  made.nets.denoiser = std::make_shared<const DeviceDenoiseNet>(*plan.denoiser);
  if (plan.noise_net) made.nets.noise = std::make_shared<const DeviceNoiseNet>(*plan.noise_net);
  entries->push_front(made);
  if (entries->size() > kKept) entries->pop_back();
  return made.nets;
}

class LearnedDeviceKernel : public DeviceBandKernel {
 public:
  explicit LearnedDeviceKernel(const LearnedPlan& plan)
      : plan_(plan), nets_(plan.untouched ? DeviceNets{} : device_nets(plan)) {}

  void run(const DeviceBand& input, const DeviceOutput& output, const std::vector<DeviceOutput>&, float*,
           cudaStream_t stream) override {
    const ImageShape& shape = plan_.shape;
    const int colour = color_channels(shape);
    if (plan_.untouched) {
      copy_kernel<<<blocks_for(size_t(shape.channels) * output.rows * output.width), kThreads, 0, stream>>>(
          input, output, shape.channels);
      check(cudaGetLastError(), "launching the learned filter's copy");
      return;
    }
    const DenoiseNet& d = *plan_.denoiser;
    const Geometry g = geometry(plan_, output.first_row, output.first_row + output.rows);
    check_rows(input, g, noise() ? noise()->net().tile : 0);
    const Need n = need(plan_, g, denoiser(), noise());
    Scratch& scratch = scratch_[stream];
    if (scratch.bytes < n.total()) {
      scratch.memory = DeviceMemory();  // cudaFree waits for the stream's earlier work
      scratch.memory = DeviceMemory(n.total());
      scratch.bytes = n.total();
    }
    char* at = scratch.memory.as<char>();
    auto take = [&](size_t bytes) {
      char* piece = at;
      at += bytes;
      return piece;
    };
    float* cells = reinterpret_cast<float*>(take(n.cells));
    float* noise_input = reinterpret_cast<float*>(take(n.noise_input));
    float* noise_cells = reinterpret_cast<float*>(take(n.noise_cells));
    void* noise_work = take(n.noise_work);
    float* rgb = reinterpret_cast<float*>(take(n.rgb));
    float* map = reinterpret_cast<float*>(take(n.map));
    float* result = reinterpret_cast<float*>(take(n.result));
    void* work = take(n.work);

    // The map's cells: the noise network's on the band's tile rows, or white noise's.
    const size_t cell_count = size_t(g.cells_x) * g.cell_rows;
    if (const DeviceNoiseNet* noise_net = noise()) {
      const int t = noise_net->net().tile, tiles_x = g.pw / t, per_side = t / d.map_cell;
      const int tiles = tiles_x * (g.tile_row1 - g.tile_row0);
      for (int k0 = 0; k0 < tiles; k0 += kNoiseTileChunk) {
        const int count = std::min(kNoiseTileChunk, tiles - k0);
        noise_tiles_kernel<<<blocks_for(size_t(count) * 3 * t * t), kThreads, 0, stream>>>(
            input, colour, g.width, g.height, t, tiles_x, g.tile_row0, k0, count, noise_input);
        check(cudaGetLastError(), "launching the learned filter's noise tiles");
        noise_net->forward(noise_input, count, noise_cells, noise_work, stream);
        place_cells_kernel<<<blocks_for(size_t(count) * per_side * per_side * d.map_channels), kThreads, 0, stream>>>(
            noise_cells, count, k0, tiles_x, per_side, d.map_channels, g.cells_x, cells);
        check(cudaGetLastError(), "launching the learned filter's cells");
      }
    } else {
      const std::vector<float> white = white_noise_cells(plan_.options.sigma);
      CellValues values{};
      if (white.size() != size_t(kNoiseMapOutputs) || d.map_channels != kNoiseMapOutputs)
        throw BackendError("learned: the map is not the noise map's 18 outputs");
      std::copy(white.begin(), white.end(), values.v);
      fill_cells_kernel<<<blocks_for(cell_count * kNoiseMapOutputs), kThreads, 0, stream>>>(cells, cell_count, values);
      check(cudaGetLastError(), "launching the learned filter's white map");
    }
    if (plan_.options.luminance != 1.0 || plan_.options.colour != 1.0) {
      scale_cells_kernel<<<blocks_for(cell_count * (kNoiseMapOutputs / 6)), kThreads, 0, stream>>>(
          cells, cell_count, std::max(plan_.options.luminance, 1e-3), std::max(plan_.options.colour, 1e-3));
      check(cudaGetLastError(), "launching the learned filter's map scaling");
    }

    // The denoiser on column tiles of the band, each core's output written.
    MapArgs a{cells, g.first_cell_row, g.cells_x, g.cells_y, d.map_channels, double(d.map_cell) / double(g.r),
              float(2.0 * std::log(std::max(plan_.options.strength, 1e-3))), float(d.map_offset), float(d.map_scale)};
    const int h = g.bottom - g.top;
    for (int cx0 = 0; cx0 < g.width; cx0 += kCoreColumns) {
      const int cx1 = std::min(cx0 + kCoreColumns, g.width);
      const int x0 = std::max(0, cx0 - g.reach), x1 = std::min(g.pw, cx0 + kCoreColumns + g.reach), w = x1 - x0;
      rgb_tile_kernel<<<blocks_for(size_t(w) * h * 3), kThreads, 0, stream>>>(input, colour, g.width, g.height, x0,
                                                                              g.top, w, h, rgb);
      check(cudaGetLastError(), "launching the learned filter's tile");
      map_tile_kernel<<<blocks_for(size_t(w / g.r) * (h / g.r) * d.map_channels), kThreads, 0, stream>>>(
          a, x0 / g.r, g.top / g.r, w / g.r, h / g.r, map);
      check(cudaGetLastError(), "launching the learned filter's map");
      denoiser().forward(rgb, map, w, h, result, work, stream);
      output_kernel<<<blocks_for(size_t(output.rows) * (cx1 - cx0)), kThreads, 0, stream>>>(
          result, w, x0, g.top, cx0, cx1, output, input, colour, has_alpha(shape));
      check(cudaGetLastError(), "launching the learned filter's output");
    }
  }

  const DeviceDenoiseNet& denoiser() const { return *nets_.denoiser; }
  const DeviceNoiseNet* noise() const { return nets_.noise.get(); }

 private:
  struct Scratch {
    DeviceMemory memory;
    size_t bytes = 0;
  };
  const LearnedPlan& plan_;
  DeviceNets nets_;
  std::map<cudaStream_t, Scratch> scratch_;
};

}  // namespace

std::string learned_unsupported(const Plan& plan) {
  if (static_cast<const LearnedPlan&>(plan).untouched) return "";
  return denoise_net_unsupported();
}

std::unique_ptr<DeviceBandKernel> make_learned_device_kernel(const Plan& plan) {
  return std::make_unique<LearnedDeviceKernel>(static_cast<const LearnedPlan&>(plan));
}

// Two band heights in the middle of a tall image give the cost per row and,
// extrapolated to no rows, the fixed part (the buffers are affine in the
// rows but for the rounding of tiles and cells, which a tile row's slack
// covers). The fixed part is not the short band's whole cost: that counted
// 256 rows twice and refused 64 MiB budgets the band fits in.
BandCost learned_device_cost(const Plan& plan) {
  const LearnedPlan& learned = static_cast<const LearnedPlan&>(plan);
  if (learned.untouched) return {};
  LearnedPlan tall = learned;
  constexpr int kShortRows = 256;
  tall.shape.height = 16 * (plan.reach + kShortRows);
  const DeviceNets nets = device_nets(tall);  // the process's networks: what the kernel will use
  auto bytes = [&](int rows) {
    const int middle = tall.shape.height / 2;
    return need(tall, geometry(tall, middle, middle + rows), *nets.denoiser, nets.noise.get()).total();
  };
  const size_t small = bytes(kShortRows), large = bytes(2 * kShortRows);
  const size_t per_row = (large - small + kShortRows - 1) / kShortRows;
  const size_t at_no_rows = small > per_row * kShortRows ? small - per_row * kShortRows : 0;
  const size_t slack = 64 * per_row;
  return {at_no_rows + slack, per_row};
}

}  // namespace edgewise::cuda
