// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/main_window.h"

#include <QTabWidget>

namespace ringmaster::gui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) {
  setWindowTitle(tr("Ringmaster"));
  auto* pages = new QTabWidget(this);
  pages->setDocumentMode(true);
  setCentralWidget(pages);
  resize(1280, 800);
}

}  // namespace ringmaster::gui
