#include "problems/generated/task_generator.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include "Eigen/Dense"
#include "absl/strings/str_cat.h"
#include "boost/random/sobol.hpp"
#include "common/status_macros.h"
#include "common/sqlite.h"

namespace bbo {
namespace {

// Warped coordinates scaled to [0, 1] by the warped bounds (a degenerate range maps to 0).
std::vector<double> ToUnit(const SearchSpace& space, const Point& p) {
  std::vector<double> w = space.Warp(p);
  const auto bounds = space.WarpedBounds();
  for (size_t i = 0; i < w.size(); ++i) {
    const double span = bounds[i].second - bounds[i].first;
    w[i] = span > 0 ? (w[i] - bounds[i].first) / span : 0.0;
  }
  return w;
}

Point FromUnit(const SearchSpace& space, const std::vector<double>& u) {
  const auto bounds = space.WarpedBounds();
  std::vector<double> w(u.size());
  for (size_t i = 0; i < u.size(); ++i) {
    w[i] = bounds[i].first + u[i] * (bounds[i].second - bounds[i].first);
  }
  return space.Unwarp(w);
}

// A generated task: a GP posterior mean over the design points, rescaled.
class GeneratedTask : public Problem {
 public:
  GeneratedTask(std::string name, std::string description,
                std::shared_ptr<const SearchSpace> space, Eigen::MatrixXd points,
                Eigen::VectorXd weights, double length_scale, double mean, double scale)
      : name_(std::move(name)),
        description_(std::move(description)),
        space_(std::move(space)),
        points_(std::move(points)),
        weights_(std::move(weights)),
        inv_two_l2_(1.0 / (2 * length_scale * length_scale)),
        mean_(mean),
        scale_(scale) {}
  const std::string& name() const override { return name_; }
  const SearchSpace& space() const override { return *space_; }
  std::optional<double> known_optimum() const override { return std::nullopt; }
  std::string description() const override { return description_; }
  std::vector<std::string> attributes() const override { return {"generated", "smooth"}; }
  std::string family() const override { return "generated"; }
  double Evaluate(const Point& p) const override {
    const std::vector<double> u = ToUnit(*space_, p);
    double f = 0;
    const Eigen::Index n = points_.rows(), d = points_.cols();
    for (Eigen::Index i = 0; i < n; ++i) {
      double r2 = 0;
      for (Eigen::Index j = 0; j < d; ++j) {
        const double diff = u[j] - points_(i, j);
        r2 += diff * diff;
      }
      f += weights_[i] * std::exp(-r2 * inv_two_l2_);
    }
    return mean_ + scale_ * f;
  }

 private:
  std::string name_, description_;
  std::shared_ptr<const SearchSpace> space_;
  Eigen::MatrixXd points_;
  Eigen::VectorXd weights_;
  double inv_two_l2_, mean_, scale_;
};

// Relative jitter of a generated task's output mean and scale around its anchor task's: nearby,
// not a copy.
constexpr double kOutputJitter = 0.25;

double MeanOf(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x;
  return v.empty() ? 0 : s / static_cast<double>(v.size());
}

double SdOf(const std::vector<double>& v) {
  if (v.size() < 2) return 0;
  const double m = MeanOf(v);
  double s = 0;
  for (double x : v) s += (x - m) * (x - m);
  return std::sqrt(s / static_cast<double>(v.size() - 1));
}

// Opens an existing design file. NotFound when the file or its tables are missing.
absl::StatusOr<std::unique_ptr<sqlite::Database>> OpenDesignFile(const std::string& path) {
  // Database::Open would create a missing file.
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    return absl::NotFoundError(absl::StrCat("no design file ", path));
  }
  ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path));
  ASSIGN_OR_RETURN(auto q, db->Prepare("SELECT COUNT(*) FROM sqlite_master WHERE type = 'table'"
                                       " AND name IN ('task_families', 'task_designs')"));
  ASSIGN_OR_RETURN(bool row, q->Step());
  if (!row || q->Int(0) != 2) {
    return absl::NotFoundError(absl::StrCat(path, " holds no task design (bbo tasks design)"));
  }
  return db;
}

}  // namespace

absl::StatusOr<TaskFamilyDesign> RunDesign(const std::string& family,
                                           const std::vector<const Problem*>& tasks, int n_points,
                                           const DesignProgress& progress) {
  if (tasks.empty()) return absl::InvalidArgumentError("design: no tasks");
  if (n_points < 4) return absl::InvalidArgumentError("design: n_points must be >= 4");
  TaskFamilyDesign d;
  d.family = family;
  d.api_config = tasks[0]->space().api_config();
  for (const Problem* t : tasks) {
    if (t->space().api_config() != d.api_config) {
      return absl::InvalidArgumentError(absl::StrCat("design: task ", t->name(),
                                                     " has a different search space than ",
                                                     tasks[0]->name()));
    }
  }
  const SearchSpace& space = tasks[0]->space();
  const int dims = space.dims();
  boost::random::sobol sobol(dims);
  const double denom = static_cast<double>(sobol.max() - sobol.min()) + 1.0;
  sobol.discard(dims);  // skip the all-zero first point (a corner)
  std::vector<Point> points;
  for (int i = 0; i < n_points; ++i) {
    std::vector<double> u(dims);
    for (double& x : u) x = static_cast<double>(sobol() - sobol.min()) / denom;
    Point p = FromUnit(space, u);
    d.unit_points.push_back(ToUnit(space, p));  // where the (snapped) point really is
    points.push_back(std::move(p));
  }
  for (const Problem* t : tasks) {
    std::vector<double> values;
    double worst = -std::numeric_limits<double>::infinity();
    for (const Point& p : points) {
      double v;
      try {
        v = t->Evaluate(p);
      } catch (...) {
        v = NAN;
      }
      values.push_back(v);
      if (std::isfinite(v)) worst = std::max(worst, v);
    }
    if (!std::isfinite(worst)) {
      return absl::InvalidArgumentError(absl::StrCat("design: task ", t->name(),
                                                     " has no finite value"));
    }
    for (double& v : values) {
      if (!std::isfinite(v)) v = worst;
    }
    d.tasks.push_back(t->name());
    d.values.push_back(std::move(values));
    if (progress) {
      progress(static_cast<int>(d.tasks.size()), static_cast<int>(tasks.size()), t->name());
    }
  }
  return d;
}

absl::Status SaveDesign(const TaskFamilyDesign& design, const std::string& path) {
  ASSIGN_OR_RETURN(auto db, sqlite::Database::Open(path));
  RETURN_IF_ERROR(db->Exec(R"sql(
CREATE TABLE IF NOT EXISTS task_designs (
  family TEXT NOT NULL, task TEXT NOT NULL, idx INTEGER NOT NULL,
  unit_point TEXT NOT NULL, value REAL NOT NULL,
  PRIMARY KEY (family, task, idx));
CREATE TABLE IF NOT EXISTS task_families (family TEXT PRIMARY KEY, api_config TEXT NOT NULL);
)sql"));
  sqlite::Transaction tx(db.get());
  RETURN_IF_ERROR(tx.Begin());
  {
    ASSIGN_OR_RETURN(auto del, db->Prepare("DELETE FROM task_designs WHERE family = ?"));
    del->Bind(1, design.family);
    RETURN_IF_ERROR(del->Run());
    ASSIGN_OR_RETURN(auto fam,
                     db->Prepare("INSERT OR REPLACE INTO task_families VALUES (?, ?)"));
    fam->Bind(1, design.family).Bind(2, design.api_config.dump());
    RETURN_IF_ERROR(fam->Run());
    ASSIGN_OR_RETURN(auto ins, db->Prepare("INSERT INTO task_designs VALUES (?, ?, ?, ?, ?)"));
    for (size_t k = 0; k < design.tasks.size(); ++k) {
      for (size_t i = 0; i < design.unit_points.size(); ++i) {
        ins->Bind(1, design.family).Bind(2, design.tasks[k]).Bind(3, static_cast<int64_t>(i));
        ins->Bind(4, nlohmann::json(design.unit_points[i]).dump()).Bind(5, design.values[k][i]);
        RETURN_IF_ERROR(ins->Run());
      }
    }
  }
  return tx.Commit();
}

absl::StatusOr<TaskFamilyDesign> LoadDesign(const std::string& path, const std::string& family) {
  ASSIGN_OR_RETURN(auto db, OpenDesignFile(path));
  TaskFamilyDesign d;
  d.family = family;
  {
    ASSIGN_OR_RETURN(auto q, db->Prepare("SELECT api_config FROM task_families WHERE family = ?"));
    q->Bind(1, family);
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) return absl::NotFoundError(absl::StrCat("no task family \"", family, "\" in ", path));
    d.api_config = nlohmann::json::parse(q->Text(0));
  }
  // Rows were inserted task by task in design order, so rowid order is the design's order.
  ASSIGN_OR_RETURN(auto q, db->Prepare("SELECT task, idx, unit_point, value FROM task_designs"
                                       " WHERE family = ? ORDER BY rowid"));
  q->Bind(1, family);
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    const std::string task = q->Text(0);
    if (d.tasks.empty() || d.tasks.back() != task) {
      d.tasks.push_back(task);
      d.values.emplace_back();
    }
    if (d.tasks.size() == 1) {
      d.unit_points.push_back(nlohmann::json::parse(q->Text(2)).get<std::vector<double>>());
    }
    d.values.back().push_back(q->Double(3));
  }
  for (size_t k = 0; k < d.tasks.size(); ++k) {
    if (d.values[k].size() != d.unit_points.size()) {
      return absl::DataLossError(absl::StrCat(path, ": family ", family, ", task ", d.tasks[k],
                                              " has ", d.values[k].size(), " values for ",
                                              d.unit_points.size(), " design points"));
    }
  }
  return d;
}

absl::StatusOr<std::vector<DesignSummary>> ListDesigns(const std::string& path) {
  ASSIGN_OR_RETURN(auto db, OpenDesignFile(path));
  ASSIGN_OR_RETURN(auto q, db->Prepare(R"sql(
SELECT f.family, f.api_config, COUNT(DISTINCT d.task), COUNT(DISTINCT d.idx)
FROM task_families f LEFT JOIN task_designs d ON d.family = f.family
GROUP BY f.family ORDER BY f.family)sql"));
  std::vector<DesignSummary> out;
  while (true) {
    ASSIGN_OR_RETURN(bool row, q->Step());
    if (!row) break;
    const nlohmann::json api_config = nlohmann::json::parse(q->Text(1), nullptr, false);
    out.push_back({.family = q->Text(0),
                   .tasks = static_cast<int>(q->Int(2)),
                   .points = static_cast<int>(q->Int(3)),
                   .dims = api_config.is_object() ? static_cast<int>(api_config.size()) : 0});
  }
  return out;
}

struct TaskGenerator::Model {
  std::string family;
  std::shared_ptr<const SearchSpace> space;
  nlohmann::json api_config;
  Eigen::MatrixXd points;      // n x d, unit cube
  Eigen::VectorXd center;      // n: mean standardized values over tasks
  Eigen::MatrixXd components;  // n x r: principal directions
  Eigen::MatrixXd latents;     // K x r: task coordinates
  Eigen::VectorXd latent_sd;   // r
  std::vector<double> means, scales;
  double length_scale = 1;
  Eigen::LLT<Eigen::MatrixXd> kernel_llt;  // of the kernel matrix over the design points
};

absl::StatusOr<std::unique_ptr<TaskGenerator>> TaskGenerator::Fit(const TaskFamilyDesign& d) {
  const int K = static_cast<int>(d.tasks.size());
  if (K < 2) return absl::InvalidArgumentError("generator: needs at least 2 tasks");
  const int n = static_cast<int>(d.unit_points.size());
  const int dims = n > 0 ? static_cast<int>(d.unit_points[0].size()) : 0;
  auto model = std::make_unique<Model>();
  model->family = d.family;
  model->api_config = d.api_config;
  ASSIGN_OR_RETURN(SearchSpace space, SearchSpace::FromJson(d.api_config));
  model->space = std::make_shared<const SearchSpace>(std::move(space));
  model->points.resize(n, dims);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < dims; ++j) model->points(i, j) = d.unit_points[i][j];
  }
  // Standardize each task.
  Eigen::MatrixXd Z(K, n);
  for (int k = 0; k < K; ++k) {
    const double m = MeanOf(d.values[k]), s = SdOf(d.values[k]);
    if (!(s > 0)) continue;
    model->means.push_back(m);
    model->scales.push_back(s);
    const int row = static_cast<int>(model->means.size()) - 1;
    for (int i = 0; i < n; ++i) Z(row, i) = (d.values[k][i] - m) / s;
  }
  const int kept = static_cast<int>(model->means.size());
  if (kept < 2) return absl::InvalidArgumentError("generator: fewer than 2 non-constant tasks");
  Z.conservativeResize(kept, n);
  // PCA over tasks.
  model->center = Z.colwise().mean().transpose();
  Eigen::MatrixXd Yc = Z.rowwise() - model->center.transpose();
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(Yc, Eigen::ComputeThinU | Eigen::ComputeThinV);
  int r = 0;
  const Eigen::VectorXd sv = svd.singularValues();
  while (r < sv.size() && sv[r] > 1e-10 * sv[0]) ++r;
  r = std::max(r, 1);
  model->components = svd.matrixV().leftCols(r);                         // n x r
  model->latents = svd.matrixU().leftCols(r) * sv.head(r).asDiagonal();  // K x r
  model->latent_sd = (sv.head(r) / std::sqrt(std::max(1, kept - 1))).eval();
  // Kernel over the design points; median pairwise distance as the length scale.
  std::vector<double> dist;
  for (int i = 0; i < n; ++i) {
    for (int j = i + 1; j < n; ++j) {
      dist.push_back((model->points.row(i) - model->points.row(j)).norm());
    }
  }
  std::nth_element(dist.begin(), dist.begin() + dist.size() / 2, dist.end());
  model->length_scale = dist.empty() || dist[dist.size() / 2] <= 0 ? 1.0 : dist[dist.size() / 2];
  Eigen::MatrixXd Kmat(n, n);
  for (int i = 0; i < n; ++i) {
    for (int j = 0; j < n; ++j) {
      const double r2 = (model->points.row(i) - model->points.row(j)).squaredNorm();
      Kmat(i, j) = std::exp(-r2 / (2 * model->length_scale * model->length_scale));
    }
  }
  Kmat.diagonal().array() += 1e-8;  // a tiny nugget keeps the factorization stable
  model->kernel_llt.compute(Kmat);
  return std::unique_ptr<TaskGenerator>(new TaskGenerator(std::move(model)));
}

TaskGenerator::TaskGenerator(std::unique_ptr<const Model> model) : model_(std::move(model)) {}

TaskGenerator::~TaskGenerator() = default;

int TaskGenerator::latent_dims() const { return static_cast<int>(model_->components.cols()); }

std::vector<double> TaskGenerator::task_latent(int k) const {
  const Eigen::VectorXd row = model_->latents.row(k).transpose();
  return std::vector<double>(row.data(), row.data() + row.size());
}

double TaskGenerator::task_mean(int k) const { return model_->means[k]; }

double TaskGenerator::task_scale(int k) const { return model_->scales[k]; }

std::unique_ptr<Problem> TaskGenerator::GenerateFromLatent(const std::string& name,
                                                           const std::vector<double>& latent,
                                                           double mean, double scale) const {
  const Model& m = *model_;
  Eigen::VectorXd z =
      m.center + m.components * Eigen::Map<const Eigen::VectorXd>(latent.data(), latent.size());
  // A latent draw also changes the amplitude of the shape; the amplitude belongs to `scale`.
  z.array() -= z.mean();
  const double sd = z.size() > 1 ? std::sqrt(z.squaredNorm() / (z.size() - 1)) : 0.0;
  if (sd > 0) z /= sd;
  Eigen::VectorXd weights = m.kernel_llt.solve(z);
  return std::make_unique<GeneratedTask>(
      name, absl::StrCat("generated task resembling the \"", m.family, "\" family (Profet-style)"),
      m.space, m.points, std::move(weights), m.length_scale, mean, scale);
}

std::unique_ptr<Problem> TaskGenerator::Generate(uint64_t seed) const {
  std::mt19937_64 rng(seed ^ 0x7f4a7c159e3779b9ULL);
  std::normal_distribution<double> normal(0.0, 1.0);
  const Model& m = *model_;
  std::vector<double> latent(latent_dims());
  for (int j = 0; j < latent_dims(); ++j) latent[j] = m.latent_sd[j] * normal(rng);
  // The output mean and scale come from one real task, not from Gaussians fitted over the
  // tasks: a family's tasks often differ by orders of magnitude in scale (ML losses on classic vs
  // generated datasets), and independent draws then made tasks far outside the family's range
  // (negative log-losses, scales beyond every real task's).
  std::uniform_int_distribution<int> pick(0, static_cast<int>(m.means.size()) - 1);
  const int anchor = pick(rng);
  const double scale = m.scales[anchor] * std::exp(kOutputJitter * normal(rng));
  const double mean = m.means[anchor] + kOutputJitter * m.scales[anchor] * normal(rng);
  return GenerateFromLatent(absl::StrCat("gen_", m.family, "_", seed), latent, mean, scale);
}

}  // namespace bbo
