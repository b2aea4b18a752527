// SPDX-License-Identifier: GPL-3.0-or-later
// A group of the Launch page's fields: each field is named by its spec path (its object name, and its key in
// fields()), so the page can mark the fields a problem belongs to and tests can fill them as a user would.
#pragma once

#include <QGroupBox>
#include <QMap>
#include <functional>
#include <initializer_list>
#include <string_view>

class QComboBox;
class QDoubleSpinBox;
class QHBoxLayout;
class QPushButton;
class QSpinBox;

namespace ringmaster::gui {

class LaunchForm : public QGroupBox {
 public:
  using QGroupBox::QGroupBox;

  const QMap<QString, QWidget*>& fields() const { return fields_; }
  // Says that the field at a spec path has a problem, in words for a person.
  using Note = std::function<void(const QString& field, const QString& text)>;

 protected:
  template <typename Field>
  Field* add(const QString& key, Field* field) {
    field->setObjectName(key);
    fields_.insert(key, field);
    return field;
  }

 private:
  QMap<QString, QWidget*> fields_;
};

// The kinds of field the forms are made of.
namespace launch_fields {

QString q(std::string_view s);
QComboBox* choices(QWidget* parent, std::initializer_list<std::string_view> names);
QDoubleSpinBox* number(QWidget* parent, double lo, double hi, int decimals, const QString& suffix = {});
QSpinBox* integer(QWidget* parent, int lo, int hi, const QString& special = {});
// A line edit with a browse button after it.
QHBoxLayout* withButton(QWidget* edit, QPushButton* button);
// A folder as the ranks get it: absolute, from the console's current folder, with "~" as the home folder.
QString absoluteFolder(const QString& text);

}  // namespace launch_fields

}  // namespace ringmaster::gui
