// SPDX-License-Identifier: GPL-3.0-or-later
// The runs of the store as the window lists them: the Runs list kept up to date (also when the CLI or another
// console wrote to the store), the Runs page's rename, tag and delete, and trace or record files imported as
// a run.
#pragma once

#include <QObject>
#include <QStringList>
#include <chrono>

class QTimer;

namespace ringmaster::console {
class RunsModel;
class StoreAccess;
struct RecordImportResult;
}  // namespace ringmaster::console

namespace ringmaster::gui {

class RunsPage;

class RunHistory : public QObject {
  Q_OBJECT

 public:
  explicit RunHistory(console::StoreAccess* store, QObject* parent = nullptr);

  console::RunsModel* model() const { return model_; }
  // Carries out the page's rename, tag, delete and refresh, and says on it how many runs the store holds.
  void serve(RunsPage* page);
  void refresh();
  // How often the store is looked at for changes another connection made.
  void setWatchInterval(std::chrono::milliseconds interval);
  // Imports trace files, or the record files of a program's ranks, as one run (see MainWindow::importTraces);
  // imported() tells which.
  void importTraces(const QStringList& paths);

 Q_SIGNALS:
  void refreshed();
  void importing(const QString& text);
  // The import's account, a warning when a file was cut short.
  void imported(int64_t runId, const QString& text, bool warning);

 private:
  // Refreshes the runs when another connection wrote to the store since the last look.
  void checkStoreChanged();
  // Says what an import of record files made.
  void importedRecords(const QString& what, const console::RecordImportResult& result);

  console::StoreAccess* store_;
  console::RunsModel* model_;
  RunsPage* page_ = nullptr;
  QTimer* storeWatch_;
  int64_t storeVersion_ = -1;
  bool storeCheckPending_ = false;
};

}  // namespace ringmaster::gui
