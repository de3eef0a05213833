#pragma once
// The parts of a training step's time (cluster/train.cpp assembles them).
#include "cluster/cluster.hpp"
#include "cluster/dims.hpp"

namespace vramcalc {

// Every collective of the step on its link (train_comms.cpp): appended to st.comms, the hideable ones with
// exposed_s < 0 (train.cpp decides what hides).
void add_comm_terms(const Model& model, const Job& job, const ClusterRequest& r, const Parallel& p, const Dims& d, TrainStep& st);

}  // namespace vramcalc
