#include "last_values.h"

#include <cstdint>
#include <type_traits>

namespace edgewise_plugin {

namespace {

// GIMP stores raw bytes; a plain struct with a layout tag keeps a plug-in
// built with a different params.def from reading another layout's bytes.
struct Stored {
  uint32_t layout;
  edgewise::FilterSpec spec;
  int32_t backend;
};
static_assert(std::is_trivially_copyable<Stored>::value, "stored with memcpy by GIMP");

constexpr uint32_t layout_tag() { return 0x45570000u + uint32_t(sizeof(Stored)); }

}  // namespace

Request load_last_values(const char* procedure) {
  Request request;
  if (gimp_get_data_size(procedure) != sizeof(Stored)) return request;
  Stored stored{};
  gimp_get_data(procedure, &stored);
  if (stored.layout != layout_tag()) return request;
  request.spec = stored.spec;
  request.backend = stored.backend;
  return request;
}

void store_last_values(const char* procedure, const Request& request) {
  Stored stored{layout_tag(), request.spec, request.backend};
  gimp_set_data(procedure, &stored, sizeof(Stored));
}

}  // namespace edgewise_plugin
