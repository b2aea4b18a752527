// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/wheel_guard.h"

#include <QAbstractSpinBox>
#include <QComboBox>
#include <QEvent>
#include <QWidget>

namespace ringmaster::gui {
namespace {

// Passes the wheel of an unfocused field on to its parents (the scroll area), untouched.
class WheelGuard : public QObject {
 public:
  using QObject::QObject;

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override {
    if (event->type() != QEvent::Wheel) return false;
    auto* field = qobject_cast<QWidget*>(watched);
    if (!field || field->hasFocus()) return false;
    // Ignored and filtered: Qt offers the event to the parents, which scroll.
    event->ignore();
    return true;
  }
};

}  // namespace

void guardWheel(QWidget* root) {
  static const char* const kGuarded = "ringmasterWheelGuarded";
  auto* guard = root->findChild<WheelGuard*>(QString(), Qt::FindDirectChildrenOnly);
  if (!guard) guard = new WheelGuard(root);
  QList<QWidget*> fields;
  for (QAbstractSpinBox* box : root->findChildren<QAbstractSpinBox*>()) fields << box;
  for (QComboBox* box : root->findChildren<QComboBox*>()) fields << box;
  for (QWidget* field : fields) {
    if (field->property(kGuarded).toBool()) continue;
    field->setProperty(kGuarded, true);
    // Wheel focus would let the wheel itself focus the field and then change it.
    field->setFocusPolicy(Qt::StrongFocus);
    field->installEventFilter(guard);
  }
}

}  // namespace ringmaster::gui
