// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/run_history.h"

#include <QDir>
#include <QFileInfo>
#include <QTimer>
#include <algorithm>
#include <variant>

#include "console/models/runs_model.h"
#include "console/session/record_import.h"
#include "console/session/store_access.h"
#include "gui/pages/runs_page.h"
#include "traces/horovod_timeline_reader.h"

namespace ringmaster::gui {
namespace {

constexpr std::chrono::milliseconds kStoreWatchInterval{1000};

// Resetting the runs model loses the user's selection: do it only when a run came, went or changed.
bool sameRuns(const std::vector<RunInfo>& runs, const console::RunsModel& model) {
  if (static_cast<int>(runs.size()) != model.rowCount()) return false;
  for (size_t i = 0; i < runs.size(); ++i) {
    const RunInfo* shown = model.run(static_cast<int>(i));
    const RunInfo& r = runs[i];
    if (shown->id != r.id || shown->name != r.name || shown->status != r.status ||
        shown->worldSize != r.worldSize || shown->endedUnixNs != r.endedUnixNs || shown->tags != r.tags ||
        shown->notes != r.notes || shown->findingKinds != r.findingKinds)
      return false;
  }
  return true;
}

}  // namespace

RunHistory::RunHistory(console::StoreAccess* store, QObject* parent)
    : QObject(parent), store_(store), model_(new console::RunsModel(this)) {
  // Runs started elsewhere (the CLI, another console) appear without a manual refresh.
  storeWatch_ = new QTimer(this);
  storeWatch_->setInterval(kStoreWatchInterval);
  connect(storeWatch_, &QTimer::timeout, this, &RunHistory::checkStoreChanged);
  storeWatch_->start();
}

void RunHistory::serve(RunsPage* page) {
  page_ = page;
  // Each change is written on the store's thread, then the list is read again.
  auto change = [this](std::function<void(RunStore&)> edit) {
    store_->post<bool>(
        this,
        [edit = std::move(edit)](RunStore& s) {
          edit(s);
          return true;
        },
        [this](bool) { refresh(); });
  };
  connect(page, &RunsPage::refreshRequested, this, &RunHistory::refresh);
  connect(page, &RunsPage::renameRequested, this, [change](int64_t id, const QString& name) {
    change([id, name = name.toStdString()](RunStore& s) { s.renameRun(id, name); });
  });
  connect(page, &RunsPage::tagRequested, this, [change](int64_t id, const QString& tag) {
    change([id, tag = tag.toStdString()](RunStore& s) { s.addTag(id, tag); });
  });
  connect(page, &RunsPage::deleteRequested, this,
          [change](int64_t id) { change([id](RunStore& s) { s.deleteRun(id); }); });
}

void RunHistory::refresh() {
  store_->post<std::vector<RunInfo>>(
      this, [](RunStore& s) { return s.runs(); },
      [this](std::vector<RunInfo> runs) {
        // The same list again keeps the user's selection and the Compare page's ticks as they are.
        if (!sameRuns(runs, *model_)) model_->setRuns(std::move(runs));
        if (page_) {
          page_->setStatus(tr("%n run(s) in %1", nullptr, model_->rowCount())
                               .arg(QDir::toNativeSeparators(store_->path())));
        }
        Q_EMIT refreshed();
      });
}

void RunHistory::setWatchInterval(std::chrono::milliseconds interval) {
  storeWatch_->setInterval(interval);
}

void RunHistory::checkStoreChanged() {
  if (storeCheckPending_) return;
  storeCheckPending_ = true;
  store_->post<int64_t>(
      this, [](RunStore& s) { return s.dataVersion(); },
      [this](int64_t version) {
        storeCheckPending_ = false;
        const bool changed = storeVersion_ >= 0 && version != storeVersion_;
        storeVersion_ = version;
        if (changed) refresh();
      });
}

void RunHistory::importTraces(const QStringList& paths) {
  if (paths.isEmpty()) return;
  const QString what =
      paths.size() == 1 ? QFileInfo(paths.front()).fileName() : tr("%n files", "", int(paths.size()));
  Q_EMIT importing(tr("Importing %1…").arg(what));
  std::vector<std::string> inputs;
  for (const QString& path : paths) inputs.push_back(path.toStdString());
  // Ranks' record files (RINGMASTER_RECORD_DIR) go through the live run's ingest, traces through their
  // readers.
  using Imported = std::variant<ImportResult, console::RecordImportResult>;
  store_->post<Imported>(
      this,
      [inputs](RunStore& s) -> Imported {
        if (console::namesRecordFiles(inputs)) return console::importRecordFiles(s, inputs);
        return ringmaster::importTraces(s, inputs);
      },
      [this, what](Imported done) {
        if (const auto* records = std::get_if<console::RecordImportResult>(&done)) {
          importedRecords(what, *records);
          return;
        }
        const ImportResult& result = std::get<ImportResult>(done);
        QString text = tr("Imported %1: %2 events.").arg(what).arg(result.summary.timelineEvents);
        if (result.files.size() > 1 || result.steps > 0) {
          text = tr("Imported %1 as one run of %2 ranks (%3): %4 events, %5 steps.")
                     .arg(what)
                     .arg(result.summary.ranks)
                     .arg(QString::fromStdString(result.rankRule))
                     .arg(result.summary.timelineEvents)
                     .arg(result.steps);
        }
        if (!result.summary.complete)
          text += QLatin1Char(' ') + tr("A file was cut short; what was whole is kept.");
        refresh();
        Q_EMIT imported(result.runId, text, !result.summary.complete);
      });
}

void RunHistory::importedRecords(const QString& what, const console::RecordImportResult& result) {
  QString text = tr("Imported %1 as one run of %2 ranks from their record files: %3 records, %4 steps.")
                     .arg(what)
                     .arg(result.files.size())
                     .arg(result.records)
                     .arg(result.steps);
  const auto lost = std::count_if(result.files.begin(), result.files.end(),
                                  [](const console::ImportedRecordFile& f) { return !f.ended; });
  const bool cut = std::any_of(result.files.begin(), result.files.end(),
                               [](const console::ImportedRecordFile& f) { return f.cutShort; });
  if (lost > 0)
    text += QLatin1Char(' ') + tr("%n rank(s) stopped without recording their end.", "", int(lost));
  if (cut) text += QLatin1Char(' ') + tr("A file was cut short; what was whole is kept.");
  refresh();
  Q_EMIT imported(result.runId, text, lost > 0 || cut);
}

}  // namespace ringmaster::gui
