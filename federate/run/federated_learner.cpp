#include "federate/run/federated_learner.hpp"

#include <algorithm>

#include "sim/app/child_process.hpp"
#include "sim/app/output_file.hpp"
#include "sim/app/sealed_file.hpp"
#include "sim/config/seeded_random.hpp"

namespace edgetwin::federate {
namespace {

constexpr const char* kCheckpointKind = "edgetwin-federate checkpoint";
// A checkpoint holds the model and the server's velocity (ResNet-18: 45 and 90 MB) and a few
// records per round.
constexpr std::size_t kMaxCheckpointBytes = std::size_t{1} << 30;
// Test samples per piece of an evaluation: the pieces, not the jobs, decide how the loss is
// summed, so that every number of jobs gives the same bits.
constexpr std::int64_t kTestSamplesPerPiece = 1000;

std::string update_bytes(const ClientUpdate& u) {
  std::string out;
  append_records(out, u.state);
  append_records(out, std::vector<std::int64_t>{u.steps, u.samples_seen});
  append_records(out, std::vector<double>{u.loss_sum, u.loss_square_sum});
  return out;
}

ClientUpdate update_of(const std::string& bytes) {
  ChildBytesReader reader(bytes);
  ClientUpdate u;
  u.state = reader.records<float>();
  const auto counts = reader.records<std::int64_t>();
  const auto losses = reader.records<double>();
  u.steps = counts.at(0);
  u.samples_seen = counts.at(1);
  u.loss_sum = losses.at(0);
  u.loss_square_sum = losses.at(1);
  return u;
}

}  // namespace

std::uint64_t client_seed(std::uint64_t fleet_seed, int round, std::size_t device) {
  // Apart from the selection's and the availability's draws, which mix (seed, round, device) too.
  return mixed_seed(mixed_seed(fleet_seed, 0x6c6561726eULL), static_cast<std::uint64_t>(round) + 1, device + 1);
}

FederatedLearner::FederatedLearner(const LocalLearning& learning, const Partition& partition,
                                   std::vector<int> batch_of_device, LearningSettings settings, ClientPool& pool,
                                   std::vector<float> initial_state)
    : learning_(learning), partition_(partition), batch_of_device_(std::move(batch_of_device)),
      settings_(std::move(settings)), pool_(pool), global_(std::move(initial_state)),
      server_(settings_.server_learning_rate, settings_.server_momentum),
      device_losses_(partition.indices.size()) {}

void FederatedLearner::keep_checkpoint(std::filesystem::path file, std::string identity, bool write) {
  checkpoint_ = std::move(file);
  identity_ = std::move(identity);
  write_checkpoint_ = write;
  std::error_code error;
  if (std::filesystem::exists(checkpoint_, error)) load_checkpoint();
}

bool FederatedLearner::on_round_end(const RoundOutcome& round, const std::vector<TaskOutcome>& tasks) {
  RoundLearning record;
  record.round = round.round;
  const bool replayed = !replay_rounds_.empty();
  if (replayed) replay(round.round, record);
  else learn(tasks, record);
  return close(record, replayed);
}

bool FederatedLearner::on_aggregation(const VersionOutcome& version, const std::vector<TaskOutcome>& applied) {
  if (!checkpoint_.empty()) throw std::logic_error("checkpoints hold synchronous rounds only");
  if (versions_.empty()) versions_.emplace(0, global_);
  RoundLearning record;
  record.round = version.version - 1;
  learn_buffered(applied, record);
  versions_.emplace(version.version, global_);
  return close(record, false);
}

bool FederatedLearner::close(RoundLearning record, bool replayed) {
  if (!replayed && due_for_evaluation(record.round)) evaluate(record);
  rounds_.push_back(record);
  if (record.evaluated && settings_.target_accuracy && record.accuracy >= *settings_.target_accuracy) reached_ = true;
  if (write_checkpoint_ && !replayed) save_checkpoint();
  if (on_learned_) on_learned_(record);
  return !(settings_.stop_at_target && reached_);
}

std::vector<ClientUpdate> FederatedLearner::train(const std::vector<std::size_t>& devices,
                                                  const std::vector<const std::vector<float>*>& starts,
                                                  const std::vector<std::uint64_t>& seeds) {
  const auto results = pool_.run(devices.size(), [&](std::size_t i) {
    const std::size_t d = devices[i];
    ClientWork work;
    work.samples = &partition_.indices[d];
    work.batch_size = batch_of_device_[d];
    work.epochs = settings_.local_epochs;
    work.steps = settings_.local_steps;
    work.seed = seeds[i];
    return update_bytes(learning_.train(*starts[i], work, settings_.client));
  });
  std::vector<ClientUpdate> updates;
  for (const std::string& bytes : results) updates.push_back(update_of(bytes));
  return updates;
}

void FederatedLearner::tally(const std::vector<std::size_t>& devices, const std::vector<ClientUpdate>& updates,
                             RoundLearning& record) {
  double loss_sum = 0;
  std::int64_t seen = 0;
  for (std::size_t i = 0; i < updates.size(); ++i) {
    const std::size_t d = devices[i];
    record.samples += static_cast<std::int64_t>(partition_.indices[d].size());
    loss_sum += updates[i].loss_sum;
    seen += updates[i].samples_seen;
    remember({record.round, static_cast<std::int64_t>(d), updates[i].samples_seen, updates[i].loss_sum,
              updates[i].loss_square_sum});
  }
  record.updates = static_cast<int>(updates.size());
  record.train_loss = seen > 0 ? loss_sum / static_cast<double>(seen) : 0.0;
}

void FederatedLearner::learn(const std::vector<TaskOutcome>& tasks, RoundLearning& record) {
  std::vector<std::size_t> counted;
  for (const TaskOutcome& t : tasks)
    if (t.counted) counted.push_back(t.device);
  std::sort(counted.begin(), counted.end());
  if (counted.empty()) return;
  std::vector<std::uint64_t> seeds;
  for (const std::size_t d : counted) seeds.push_back(client_seed(settings_.seed, record.round, d));
  const auto updates = train(counted, std::vector<const std::vector<float>*>(counted.size(), &global_), seeds);
  tally(counted, updates, record);
  std::vector<WeightedUpdate> weighted;
  for (std::size_t i = 0; i < updates.size(); ++i)
    weighted.push_back({&updates[i].state, static_cast<std::int64_t>(partition_.indices[counted[i]].size())});
  global_ = server_.step(global_, weighted_average(weighted));
}

void FederatedLearner::learn_buffered(const std::vector<TaskOutcome>& applied, RoundLearning& record) {
  if (applied.empty()) return;
  const int current = versions_.rbegin()->first;
  std::vector<std::size_t> devices;
  std::vector<const std::vector<float>*> starts;
  std::vector<std::uint64_t> seeds;
  std::map<std::size_t, std::uint64_t> rank;  // a device's earlier updates in this buffer
  double samples = 0;
  for (const TaskOutcome& t : applied) {
    devices.push_back(t.device);
    starts.push_back(&versions_.at(t.round));
    const std::uint64_t seed = client_seed(settings_.seed, record.round, t.device);
    const std::uint64_t k = rank[t.device]++;
    seeds.push_back(k == 0 ? seed : mixed_seed(seed, k));
    samples += static_cast<double>(partition_.indices[t.device].size());
  }
  const auto updates = train(devices, starts, seeds);
  tally(devices, updates, record);
  std::vector<BufferedUpdate> buffered;
  for (std::size_t i = 0; i < updates.size(); ++i) {
    const TaskOutcome& t = applied[i];
    const double share = static_cast<double>(partition_.indices[t.device].size()) / samples;
    buffered.push_back({&updates[i].state, t.round == current ? nullptr : starts[i], t.weight * share});
  }
  global_ = server_.step(global_, buffered_target(global_, buffered));
}

void FederatedLearner::evaluate(RoundLearning& record) {
  const std::int64_t samples = settings_.test_samples;
  const auto pieces = static_cast<std::size_t>((samples + kTestSamplesPerPiece - 1) / kTestSamplesPerPiece);
  const auto results = pool_.run(pieces, [&](std::size_t i) {
    const auto begin = static_cast<std::int64_t>(i) * kTestSamplesPerPiece;
    std::string out;
    append_records(out, std::vector<Evaluation>{learning_.evaluate(global_, begin, std::min(samples, begin + kTestSamplesPerPiece))});
    return out;
  });
  Evaluation all;
  for (const std::string& bytes : results) {
    const Evaluation e = ChildBytesReader(bytes).records<Evaluation>().at(0);
    all.samples += e.samples;
    all.correct += e.correct;
    all.loss_sum += e.loss_sum;
  }
  record.evaluated = true;
  record.accuracy = static_cast<double>(all.correct) / static_cast<double>(std::max<std::int64_t>(all.samples, 1));
  record.test_loss = all.loss_sum / static_cast<double>(std::max<std::int64_t>(all.samples, 1));
}

bool FederatedLearner::due_for_evaluation(int round) const {
  return (round + 1) % settings_.evaluate_every == 0 || round + 1 == settings_.rounds;
}

void FederatedLearner::remember(const TaskLoss& loss) {
  history_.push_back(loss);
  device_losses_[static_cast<std::size_t>(loss.device)] = {loss.round, loss.samples_seen, loss.loss_sum,
                                                           loss.loss_square_sum};
}

void FederatedLearner::replay(int round, RoundLearning& record) {
  record = replay_rounds_.front();
  replay_rounds_.erase(replay_rounds_.begin());
  if (record.round != round) throw std::logic_error("a checkpoint's rounds out of step with the clock");
  while (!replay_history_.empty() && replay_history_.front().round == round) {
    remember(replay_history_.front());
    replay_history_.erase(replay_history_.begin());
  }
}

void FederatedLearner::save_checkpoint() const {
  std::string body;
  append_records(body, rounds_);
  append_records(body, history_);
  append_records(body, global_);
  append_records(body, server_.velocity());
  OutputFile file(checkpoint_);
  file.write(seal_bytes(kCheckpointKind, identity_, body));
  file.commit();
}

void FederatedLearner::load_checkpoint() {
  const Unsealed sealed = read_sealed_file(checkpoint_, kCheckpointKind, kMaxCheckpointBytes);
  if (sealed.identity != identity_)
    throw ConfigError({Diagnostic{checkpoint_.string(), 0, 0, "--checkpoint",
                                  "a checkpoint of another run (other inputs or options); remove it or name another "
                                  "directory"}});
  ChildBytesReader reader(sealed.body);
  replay_rounds_ = reader.records<RoundLearning>();
  replay_history_ = reader.records<TaskLoss>();
  std::vector<float> global = reader.records<float>();
  std::vector<double> velocity = reader.records<double>();
  if (global.size() != global_.size() || (!velocity.empty() && velocity.size() != global_.size()))
    throw ConfigError({Diagnostic{checkpoint_.string(), 0, 0, "--checkpoint", "a checkpoint of another model"}});
  global_ = std::move(global);
  server_.restore(std::move(velocity));
  resumed_rounds_ = static_cast<int>(replay_rounds_.size());
}

}  // namespace edgetwin::federate
