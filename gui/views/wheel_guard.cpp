// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/views/wheel_guard.h"

#include <QAbstractScrollArea>
#include <QAbstractSpinBox>
#include <QComboBox>
#include <QCoreApplication>
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
    // To the scroll area around the field, which scrolls; Qt would not pass on a wheel event it did not
    // get from the window system.
    for (QWidget* up = field->parentWidget(); up; up = up->parentWidget()) {
      if (auto* area = qobject_cast<QAbstractScrollArea*>(up)) {
        QCoreApplication::sendEvent(area->viewport(), event);
        return true;
      }
    }
    event->ignore();
    return true;
  }
};

}  // namespace

void guardWheel(QWidget* root) {
  static const char* const kGuarded = "ringmasterWheelGuarded";
  // One guard per root, found by name: findChild<T> needs a Q_OBJECT class to tell T from other objects.
  static const QString kName = QStringLiteral("ringmasterWheelGuard");
  QObject* guard = root->findChild<QObject*>(kName, Qt::FindDirectChildrenOnly);
  if (!guard) {
    guard = new WheelGuard(root);
    guard->setObjectName(kName);
  }
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
