// The filters this build offers, in the order front ends list them (the
// first is the default). A new filter is one line here; its stem holds the
// rest (docs/architecture.md has the checklist).
#include "bilateral.h"
#include "filter_registry.h"
#include "fourier.h"
#include "learned.h"
#include "nlbayes.h"
#include "nlm.h"
#include "pyramid.h"

namespace edgewise {

const Registry& builtin_registry() {
  static const Registry registry({
      &bilateral_filter(),
      &adaptive_filter(),
      &nlm_filter(),
      &fourier_filter(),
      &pyramid_filter(),
      &nlbayes_filter(),
      &learned_filter(),
  });
  return registry;
}

}  // namespace edgewise
