#include "executor.h"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace edgewise {

namespace {

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace

size_t BufferInput::staged_row_bytes() const {
  return staged_ ? size_t(buffer_.shape.width) * size_t(buffer_.shape.channels) * size_t(sample_bytes(buffer_.type))
                 : 0;
}

RowSpan BufferInput::read(int first, int rows, void* staging) {
  if (!staged_) return {buffer_.row(first), buffer_.stride(), buffer_.type, first, rows};
  const size_t row_bytes = staged_row_bytes();
  for (int i = 0; i < rows; ++i)
    std::memcpy(static_cast<unsigned char*>(staging) + size_t(i) * row_bytes, buffer_.row(first + i), row_bytes);
  return {staging, row_bytes, buffer_.type, first, rows};
}

RowSpan BufferOutput::target(int y0, int rows, void* staging) {
  if (!staged_) return {buffer_.row(y0), buffer_.stride(), buffer_.type, y0, rows};
  return {staging, staged_row_bytes(), buffer_.type, y0, rows};
}

void BufferOutput::deliver(const RowSpan& rows) {
  if (!staged_) return;
  for (int i = 0; i < rows.rows; ++i)
    std::memcpy(buffer_.row(rows.first_row + i), rows.row(rows.first_row + i), staged_row_bytes());
}

size_t BufferOutput::staged_row_bytes() const {
  return staged_ ? size_t(buffer_.shape.width) * size_t(buffer_.shape.channels) * size_t(sample_bytes(buffer_.type))
                 : 0;
}

RowSpan StreamInput::read(int first, int rows, void* staging) {
  source_.read_rows(first, rows, static_cast<float*>(staging));
  return {staging, staged_row_bytes(), SampleType::f32, first, rows};
}

RowSpan StreamOutput::target(int y0, int rows, void* staging) {
  return {staging, staged_row_bytes(), SampleType::f32, y0, rows};
}

void StreamOutput::deliver(const RowSpan& rows) {
  sink_.write_rows(rows.first_row, rows.rows, static_cast<const float*>(rows.data));
}

BandLayout choose_bands(const Plan& plan, const BandBudget& budget, int requested) {
  const int height = plan.shape.height;
  const int least = std::min(height, std::max(plan.reach, 1));
  const BandCost cost = plan.band_cost();
  const size_t fixed = cost.fixed * sizeof(float) + budget.own.fixed;
  const size_t per_row = cost.per_row * sizeof(float) + budget.own.per_row;
  const size_t smallest = fixed + per_row * size_t(std::max(least, requested > 0 ? std::min(requested, height) : 0));
  BandLayout layout;
  layout.slots = std::max(1, budget.slots);
  while (layout.slots > 1 && budget.bytes / size_t(layout.slots) < smallest) --layout.slots;
  const size_t per_band = budget.bytes / size_t(layout.slots);
  if (requested > 0) {
    // Not below the backend's minimum: 16-row bands keep the CPU's preview
    // quick to cancel, but cost a GPU a launch series each.
    layout.rows = std::min(height, std::max({requested, least, budget.min_rows}));
    return layout;
  }
  if (per_band < smallest)
    throw BackendError(budget.name + " of " + std::to_string(budget.bytes >> 20) +
                       " MiB is too small for this image width and filter reach");
  const int fit = int(std::min<size_t>((per_band - fixed) / per_row, size_t(height)));
  const int share = std::max((height + budget.min_bands - 1) / budget.min_bands, budget.min_rows);
  layout.rows = std::min(height, std::max(std::min(fit, share), least));
  return layout;
}

void execute(const Plan& plan, Backend& backend, RowInput& input, RowOutput& output,
             const std::vector<RowOutput*>& extras, const ExecuteOptions& options) {
  const BandLayout layout = choose_bands(plan, backend.budget(plan), options.band_rows);
  const int band_rows = layout.rows;
  const int height = plan.shape.height, reach = plan.reach;
  const int bands = (height + band_rows - 1) / band_rows;
  const int slots = std::min(layout.slots, bands);

  // Staging first: the runner, declared after it, is destroyed first and
  // waits for work in flight before the memory goes.
  struct Slot {
    std::shared_ptr<void> input, output;
    std::vector<std::shared_ptr<void>> extras;
    BandTask task;
    bool busy = false, done = false;
  };
  std::vector<Slot> slot(static_cast<size_t>(slots));
  const int input_rows = std::min(height, band_rows + 2 * reach);
  for (Slot& s : slot) {
    if (input.staged_row_bytes()) s.input = backend.allocate_host(input.staged_row_bytes() * size_t(input_rows));
    if (output.staged_row_bytes()) s.output = backend.allocate_host(output.staged_row_bytes() * size_t(band_rows));
    for (RowOutput* extra : extras)
      s.extras.push_back(
          extra->staged_row_bytes() ? backend.allocate_host(extra->staged_row_bytes() * size_t(band_rows)) : nullptr);
  }
  std::unique_ptr<BandRunner> runner = backend.prepare(plan, band_rows, slots);

  // Progress never goes back: a band's own reports (BandTask::progress)
  // may run ahead of an earlier band's delivery where bands overlap.
  double reported = 0;
  const auto report = [&](double rows_done) {
    const double fraction = std::min(1.0, rows_done / double(height));
    if (!options.progress || fraction < reported) return;
    reported = fraction;
    if (!options.progress(options.progress_base + options.progress_span * fraction)) throw Cancelled{};
  };

  // Bands are delivered in order, each only after the next band's input was
  // read (copied, when the output overwrites the input), so with bands of
  // at least the reach no band is fed a filtered row.
  int next_delivery = 0;
  auto deliver_done = [&] {
    for (;;) {
      Slot& s = slot[size_t(next_delivery % slots)];
      if (!s.done || s.task.y0 != next_delivery * band_rows) return;
      const auto start = std::chrono::steady_clock::now();
      output.deliver(s.task.output);
      for (size_t e = 0; e < extras.size(); ++e) extras[e]->deliver(s.task.extras[e]);
      if (options.observer) options.observer->rows_written(s.task.rows, seconds_since(start));
      s.done = false;
      ++next_delivery;
      report(double(s.task.y0 + s.task.rows));
    }
  };

  for (int band = 0; band < bands; ++band) {
    Slot& s = slot[size_t(band % slots)];
    if (s.busy) {
      runner->wait(band % slots);
      s.busy = false;
      s.done = true;
    }
    const int y0 = band * band_rows, rows = std::min(band_rows, height - y0);
    const int first = std::max(0, y0 - reach), last = std::min(height, y0 + rows + reach);
    const auto start = std::chrono::steady_clock::now();
    const RowSpan in = input.read(first, last - first, s.input.get());
    if (options.observer) options.observer->rows_read(last - first, seconds_since(start));
    deliver_done();

    s.task.y0 = y0;
    s.task.rows = rows;
    s.task.input = in;
    s.task.output = output.target(y0, rows, s.output.get());
    s.task.extras.clear();
    for (size_t e = 0; e < extras.size(); ++e) s.task.extras.push_back(extras[e]->target(y0, rows, s.extras[e].get()));
    // A slow band's own progress, as rows of the image: a 24 MP photo's
    // band of the CPU's nlbayes takes seconds.
    s.task.progress = nullptr;
    if (options.progress) s.task.progress = [&report, y0, rows](double done) { report(y0 + rows * done); };
    runner->submit(band % slots, s.task);
    s.busy = true;
  }
  for (int i = 0; i < slots; ++i) {
    const int band = bands + i;  // the slots in the order their bands were submitted
    Slot& s = slot[size_t(band % slots)];
    if (!s.busy) continue;
    runner->wait(band % slots);
    s.busy = false;
    s.done = true;
    deliver_done();
  }
  deliver_done();
}

}  // namespace edgewise
