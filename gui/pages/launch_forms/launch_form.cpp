// SPDX-License-Identifier: GPL-3.0-or-later
#include "gui/pages/launch_forms/launch_form.h"

#include <QComboBox>
#include <QDir>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QPushButton>
#include <QSpinBox>

namespace ringmaster::gui::launch_fields {

QString q(std::string_view s) {
  return QString::fromUtf8(s.data(), static_cast<int>(s.size()));
}

QComboBox* choices(QWidget* parent, std::initializer_list<std::string_view> names) {
  auto* box = new QComboBox(parent);
  for (auto n : names) box->addItem(q(n));
  return box;
}

QDoubleSpinBox* number(QWidget* parent, double lo, double hi, int decimals, const QString& suffix) {
  auto* box = new QDoubleSpinBox(parent);
  box->setRange(lo, hi);
  box->setDecimals(decimals);
  box->setSuffix(suffix);
  return box;
}

QSpinBox* integer(QWidget* parent, int lo, int hi, const QString& special) {
  auto* box = new QSpinBox(parent);
  box->setRange(lo, hi);
  if (!special.isEmpty()) box->setSpecialValueText(special);
  return box;
}

QHBoxLayout* withButton(QWidget* edit, QPushButton* button) {
  auto* row = new QHBoxLayout;
  row->addWidget(edit, 1);
  row->addWidget(button);
  return row;
}

QString absoluteFolder(const QString& text) {
  QString path = text;
  if (path == QLatin1String("~") || path.startsWith(QLatin1String("~/")))
    path.replace(0, 1, QDir::homePath());
  return QDir::cleanPath(QDir::current().absoluteFilePath(path));
}

}  // namespace ringmaster::gui::launch_fields
