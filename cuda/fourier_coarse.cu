// The Fourier bilateral filter's reduced-resolution path on the GPU
// (sigma-s >= 12; issue 14's lead 4, fourier_design.h's CoarseGrid): the
// series' term images (alpha, alpha cos(w k u), alpha sin(w k u)) are only
// ever needed blurred by a Gaussian of sigma-s >= 12, so they are averaged
// over image-aligned cells of s x s pixels, blurred on the cell grid and
// interpolated back per pixel; at full resolution they never reach memory.
// Four kernels:
//   1. cells: a thread per (virtual column, cell row, channel, group of up
//      to eight terms) sums its s rows of the group's planes in registers;
//      the block, whole cells of columns, sums s columns a cell in shared
//      memory. Virtual pixels beyond the image are its clamped edge pixels.
//   2. rows, 3. columns: the cell Gaussian's taps (FourierParams'
//      coarse_tap), a thread per blurred cell and plane. The cell grid is
//      computed R cells wider than the blurred cells on every side, so the
//      taps never clamp (the band's rows cover it: plan.reach).
//   4. output: a thread per pixel and channel interpolates every plane's
//      four surrounding blurred cells (fourier_coarse_position), combines
//      them with the pixel's own term values into D, E and A and writes
//      fourier_output, as the full-resolution row kernel's last pass does.
// The math per cell and pixel is the CPU backend's, so the two agree up to
// float rounding (the sums' order differs).
#include <algorithm>

#include "fourier_coarse.h"
#include "fourier_design.h"  // kMaxSeriesTerms
#include "fourier_math.h"

namespace edgewise::cuda {

namespace {

constexpr int kCellThreads = 256;    // cell kernel: virtual columns a block, whole cells of them
constexpr int kGroupTerms = 8;       // cell kernel: a thread's terms (16 lanes and alpha in registers)
constexpr int kBlurThreads = 128;    // blur kernels: cells a block, along a row
constexpr int kOutputThreads = 128;  // output kernel: pixels a block, along a row
constexpr int kMaxGridY = 65535;     // taller grids loop (a band may hold more rows than that)

// The series' constants per colour channel; term k (1..N) at k - 1.
struct CoarseTerms {
  float a0[3];                          // a_0
  float frequency[3][kMaxSeriesTerms];  // k / T
  float cosine[3][kMaxSeriesTerms];     // a_k
  float sine[3][kMaxSeriesTerms];       // b_k
};

// The band's cell grid, in cells of the image (cell i holds virtual pixels
// i s .. i s + s - 1): the cells summed, and the blurred cells the output
// interpolates between, `radius` cells in from the summed ones on every side.
struct CellGrid {
  int step, radius;
  int first_column, columns;  // summed cells
  int first_row, rows;
  int blurred_columns, blurred_rows;
  int alpha_planes;  // 1 with alpha: plane 0 of a channel
  int planes;        // a channel's: [alpha], then cos and sin of each term
  EW_HD size_t cell_plane() const { return size_t(rows) * size_t(columns); }
  EW_HD size_t row_blurred_plane() const { return size_t(rows) * size_t(blurred_columns); }
  EW_HD size_t blurred_plane() const { return size_t(blurred_rows) * size_t(blurred_columns); }
};

// The prepared band (centred working units per colour plane, alpha or null).
struct CoarseInput {
  const float* samples;
  const float* alpha;
  size_t plane_stride;
  int row_stride, pad;
  int first_row, rows;  // image row of band row 0, rows held
  int image_width, image_height;

  // Where the image's pixel (clamp(x), clamp(y)) sits in a plane. The band
  // holds every row the reach covers (edge rows repeated beyond the image);
  // the clamp to the band only keeps an address inside it.
  __device__ size_t at(int image_row, int column) const {
    const int row = min(max(min(max(image_row, 0), image_height - 1) - first_row, 0), rows - 1);
    return size_t(row) * size_t(row_stride) + size_t(min(max(column, 0), image_width - 1) + pad);
  }
};

// Kernel parameters live in a 4 KB constant bank on older toolkits.
static_assert(sizeof(FourierParams) + sizeof(CoarseTerms) + sizeof(CellGrid) + sizeof(CoarseInput) +
                      sizeof(DeviceOutput) + 64 <=
                  4096,
              "the output kernel's parameters must fit 4 KB");

// Cell sums: see the file's header. Block x: whole cells of virtual
// columns; y: cell rows (looping); z: colour channel x term group.
__global__ void __launch_bounds__(kCellThreads)
    fourier_cells_kernel(CoarseTerms terms, CellGrid g, CoarseInput in, int terms_total, int groups, float* cells) {
  constexpr int kLanes = 2 * kGroupTerms;
  __shared__ float column_sums[kLanes + 1][kCellThreads];  // the group's lanes, then alpha
  const int t = int(threadIdx.x), s = g.step, per_block = kCellThreads / s;
  const int c = int(blockIdx.z) / groups, group = int(blockIdx.z) % groups;
  const int first_term = 1 + group * kGroupTerms, count = min(kGroupTerms, terms_total - first_term + 1);
  const bool alpha_lane = g.alpha_planes && group == 0;
  const int local_cell = t / s, block_cell = int(blockIdx.x) * per_block;
  const bool active = local_cell < per_block && block_cell + local_cell < g.columns;
  const int column = (g.first_column + block_cell + local_cell) * s + (t - local_cell * s);
  const float* samples = in.samples + size_t(c) * in.plane_stride;
  float* channel_cells = cells + size_t(c) * size_t(g.planes) * g.cell_plane();
  const int lanes = (alpha_lane ? 1 : 0) + 2 * count, block_cells = min(per_block, g.columns - block_cell);
  for (int row = int(blockIdx.y); row < g.rows; row += int(gridDim.y)) {
    float sum[kLanes] = {}, alpha_sum = 0.0f;
    if (active)
      for (int i = 0; i < s; ++i) {
        const size_t at = in.at((g.first_row + row) * s + i, column);
        const float u = samples[at], a = in.alpha ? in.alpha[at] : 1.0f;
        // A hardware pair a term, not rotations (fourier.cu's column
        // kernel rotates at most twice): over a group of eight the
        // rotations would carry 2^-21 of phase error seven times. (Their
        // cost against rotations is not measured yet.)
#pragma unroll
        for (int k = 0; k < kGroupTerms; ++k)
          if (k < count) {
            float cs, sn;
            fourier_term_pair(u, terms.frequency[c][first_term - 1 + k], cs, sn);
            sum[2 * k] += a * cs;
            sum[2 * k + 1] += a * sn;
          }
        alpha_sum += a;
      }
#pragma unroll
    for (int l = 0; l < kLanes; ++l) column_sums[l][t] = sum[l];
    column_sums[kLanes][t] = alpha_sum;
    __syncthreads();
    for (int i = t; i < lanes * block_cells; i += kCellThreads) {
      const int lane = i / block_cells, cell = i - lane * block_cells;
      const bool is_alpha = alpha_lane && lane == 0;
      const int term_lane = lane - (alpha_lane ? 1 : 0);
      const float* from = column_sums[is_alpha ? kLanes : term_lane] + cell * s;
      float total = 0.0f;
      for (int m = 0; m < s; ++m) total += from[m];
      const int plane = is_alpha ? 0 : g.alpha_planes + 2 * (first_term - 1) + term_lane;
      channel_cells[size_t(plane) * g.cell_plane() + size_t(row) * size_t(g.columns) + size_t(block_cell + cell)] =
          total / float(s * s);
    }
    __syncthreads();  // column_sums is written again for the next row
  }
}

// The cell Gaussian along rows: blurred columns only. Block z: plane.
__global__ void __launch_bounds__(kBlurThreads)
    fourier_cell_rows_kernel(FourierParams p, CellGrid g, const float* cells, float* row_blurred) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), plane = int(blockIdx.z), r = g.radius;
  if (x >= g.blurred_columns) return;
  for (int row = int(blockIdx.y); row < g.rows; row += int(gridDim.y)) {
    const float* from = cells + size_t(plane) * g.cell_plane() + size_t(row) * size_t(g.columns) + size_t(x + r);
    float sum = p.coarse_tap[0] * from[0];
    for (int n = 1; n <= r; ++n) sum += p.coarse_tap[n] * (from[-n] + from[n]);
    row_blurred[size_t(plane) * g.row_blurred_plane() + size_t(row) * size_t(g.blurred_columns) + size_t(x)] = sum;
  }
}

// The cell Gaussian along columns: blurred rows only. Block z: plane.
__global__ void __launch_bounds__(kBlurThreads)
    fourier_cell_columns_kernel(FourierParams p, CellGrid g, const float* row_blurred, float* blurred) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), plane = int(blockIdx.z), r = g.radius;
  if (x >= g.blurred_columns) return;
  const ptrdiff_t stride = g.blurred_columns;
  for (int row = int(blockIdx.y); row < g.blurred_rows; row += int(gridDim.y)) {
    const float* from = row_blurred + size_t(plane) * g.row_blurred_plane() + size_t(row + r) * size_t(stride) + x;
    float sum = p.coarse_tap[0] * from[0];
    for (int n = 1; n <= r; ++n) sum += p.coarse_tap[n] * (from[-n * stride] + from[n * stride]);
    blurred[size_t(plane) * g.blurred_plane() + size_t(row) * size_t(stride) + size_t(x)] = sum;
  }
}

// Output: a thread per pixel (block x: columns; y: output rows, looping;
// z: colour channel). The blurred cells' loads go through L1: the threads
// of a warp share a few cells.
__global__ void __launch_bounds__(kOutputThreads)
    fourier_coarse_output_kernel(FourierParams p, CoarseTerms terms, CellGrid g, CoarseInput in, const float* blurred,
                                 DeviceOutput out) {
  const int x = int(blockIdx.x * blockDim.x + threadIdx.x), c = int(blockIdx.z);
  if (x >= out.width) return;
  int column_cell;
  float tx;
  fourier_coarse_position(p, x, column_cell, tx);
  const size_t plane = g.blurred_plane();
  const int stride = g.blurred_columns;
  const float* channel = blurred + size_t(c) * size_t(g.planes) * plane + (column_cell - (g.first_column + g.radius));
  const float* samples = in.samples + size_t(c) * in.plane_stride;
  for (int j = int(blockIdx.y); j < out.rows; j += int(gridDim.y)) {
    const int y = out.first_row + j;
    int row_cell;
    float ty;
    fourier_coarse_position(p, y, row_cell, ty);
    const float* corner = channel + size_t(row_cell - (g.first_row + g.radius)) * size_t(stride);
    auto value = [&](int l) {
      const float* b = corner + size_t(l) * plane;
      const float top = b[0] + tx * (b[1] - b[0]);
      const float bottom = b[stride] + tx * (b[stride + 1] - b[stride]);
      return top + ty * (bottom - top);
    };
    const float u = samples[in.at(y, x)];
    const float A = g.alpha_planes ? value(0) : 1.0f;
    float D = terms.a0[c] * A, E = 0.0f;
    for (int k = 0; k < p.terms; ++k) {
      const int l = g.alpha_planes + 2 * k;
      const float C = value(l), S = value(l + 1);
      float cs, sn;
      fourier_term_pair(u, terms.frequency[c][k], cs, sn);
      D += terms.cosine[c][k] * (cs * C + sn * S);
      E += terms.sine[c][k] * (cs * S - sn * C);
    }
    out.plane(c)[size_t(j) * out.row_stride + size_t(x)] = fourier_output(p, p.channel[c], u, E, D, A) * p.inverse_unit;
  }
}

int ceil_div(int a, int b) { return (a + b - 1) / b; }

unsigned rows_grid(int rows) { return unsigned(std::max(1, std::min(rows, kMaxGridY))); }

CoarseTerms coarse_terms(const FourierPlan& plan) {
  const FourierParams& p = plan.params;
  CoarseTerms terms{};
  for (int c = 0; c < p.color_channels; ++c) {
    terms.a0[c] = plan.cosine[plan.coefficient(c, 0)];
    for (int k = 1; k <= p.terms; ++k) {
      terms.frequency[c][k - 1] = float(double(k) * double(p.channel[c].turns_per_unit));
      terms.cosine[c][k - 1] = plan.cosine[plan.coefficient(c, k)];
      terms.sine[c][k - 1] = plan.sine[plan.coefficient(c, k)];
    }
  }
  return terms;
}

// The cells the output band needs: the blurred ones between which its
// pixels interpolate, and the radius more on every side for the taps.
CellGrid cell_grid(const FourierParams& p, const DeviceOutput& output) {
  CellGrid g{};
  g.step = p.coarse_step;
  g.radius = p.coarse_radius;
  const int first_column = fourier_coarse_first(p), last_column = fourier_coarse_last(p, output.width);
  int first_row = 0, last_row = 0;
  float weight = 0.0f;
  fourier_coarse_position(p, output.first_row, first_row, weight);
  fourier_coarse_position(p, output.first_row + output.rows - 1, last_row, weight);
  ++last_row;  // the cell below the last row's
  g.blurred_columns = last_column - first_column + 1;
  g.blurred_rows = last_row - first_row + 1;
  g.first_column = first_column - g.radius;
  g.first_row = first_row - g.radius;
  g.columns = g.blurred_columns + 2 * g.radius;
  g.rows = g.blurred_rows + 2 * g.radius;
  g.alpha_planes = p.has_alpha ? 1 : 0;
  g.planes = g.alpha_planes + 2 * p.terms;
  return g;
}

void grow(size_t& held, DeviceMemory& memory, size_t floats) {
  if (held >= floats) return;
  memory = DeviceMemory(floats * sizeof(float));
  held = floats;
}

}  // namespace

void launch_fourier_coarse(const FourierPlan& plan, const DeviceBand& prepared, const DeviceOutput& output,
                           FourierCoarseScratch& scratch, cudaStream_t stream) {
  const FourierParams& p = plan.params;
  const int colours = p.color_channels;
  if (output.rows <= 0 || output.width <= 0) return;
  const CellGrid g = cell_grid(p, output);
  const CoarseTerms terms = coarse_terms(plan);
  const CoarseInput in{prepared.plane(0),     p.has_alpha ? prepared.plane(colours) : nullptr,
                       prepared.plane_stride, prepared.width,
                       prepared.pad,          prepared.first_row,
                       prepared.rows,         output.width,
                       plan.shape.height};
  const size_t planes = size_t(colours) * size_t(g.planes);
  // The blurred cells overwrite the cell sums (fewer of them), which the
  // row blur has consumed by then.
  grow(scratch.cells, scratch.cell_memory, planes * g.cell_plane());
  grow(scratch.row_blurred, scratch.row_blurred_memory, planes * g.row_blurred_plane());
  float* cells = scratch.cell_memory.as<float>();
  float* row_blurred = scratch.row_blurred_memory.as<float>();

  const int groups = ceil_div(p.terms, kGroupTerms), per_block = kCellThreads / g.step;
  const dim3 cell_blocks(unsigned(ceil_div(g.columns, per_block)), rows_grid(g.rows), unsigned(colours * groups));
  fourier_cells_kernel<<<cell_blocks, kCellThreads, 0, stream>>>(terms, g, in, p.terms, groups, cells);
  check(cudaGetLastError(), "launching the fourier cell sums");

  const unsigned blur_x = unsigned(ceil_div(g.blurred_columns, kBlurThreads));
  fourier_cell_rows_kernel<<<dim3(blur_x, rows_grid(g.rows), unsigned(planes)), kBlurThreads, 0, stream>>>(p, g, cells,
                                                                                                           row_blurred);
  check(cudaGetLastError(), "launching the fourier cell row blur");
  fourier_cell_columns_kernel<<<dim3(blur_x, rows_grid(g.blurred_rows), unsigned(planes)), kBlurThreads, 0, stream>>>(
      p, g, row_blurred, cells);
  check(cudaGetLastError(), "launching the fourier cell column blur");

  const dim3 out_blocks(unsigned(ceil_div(output.width, kOutputThreads)), rows_grid(output.rows), unsigned(colours));
  fourier_coarse_output_kernel<<<out_blocks, kOutputThreads, 0, stream>>>(p, terms, g, in, cells, output);
  check(cudaGetLastError(), "launching the fourier coarse output");
}

}  // namespace edgewise::cuda
