// SPDX-License-Identifier: GPL-3.0-or-later
// Scrolling a form with the mouse wheel scrolls the form: spin boxes and combo boxes take the wheel only
// once the user has focused them (clicked or tabbed into), so a value never changes under a passing wheel.
#pragma once

class QWidget;

namespace ringmaster::gui {

// Guards every spin box and combo box under `root` as it is now; call again after adding fields.
void guardWheel(QWidget* root);

}  // namespace ringmaster::gui
