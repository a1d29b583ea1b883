//! The checks of groups of arguments: `one_of(...)` and `any_of(...)` on a tool or an object,
//! `conflicts_with` and `requires` on a field. Each names fields of the same struct that a
//! call may leave out (an `Option` without a default), so that the group can be kept and
//! broken. Part of the checking stage ([`super`]).

use syn::Ident;

use crate::ast::Field;
use crate::attr::GroupSetting;
use crate::ctxt::Ctxt;
use crate::model::Group;
use crate::symbol::ONE_OF;

/// The groups of a struct with `fields`: those written on it (`settings`), then each field's
/// `conflicts_with` and `requires`, in field order, by the fields' indexes.
pub fn check_groups(cx: &mut Ctxt, fields: &[Field], settings: &[GroupSetting]) -> Vec<Group> {
    let mut groups = Vec::new();
    for setting in settings {
        let indexes = members(cx, fields, setting);
        if setting.names.len() < 2 {
            cx.error_spanned_by(
                &setting.key,
                format!(
                    "a group names two fields or more: `{}(first_field, second_field)`",
                    setting.key
                ),
            );
        }
        if let Some(indexes) = indexes.filter(|indexes| indexes.len() >= 2) {
            groups.push(if setting.key == ONE_OF {
                Group::OneOf(indexes)
            } else {
                Group::AnyOf(indexes)
            });
        }
    }
    for (index, field) in fields.iter().enumerate() {
        let attrs = &field.attrs;
        if let Some(setting) = attrs.conflicts_with.get() {
            let other = pair(cx, fields, index, &setting.key, &setting.value.0);
            if let Some(other) = other {
                groups.push(Group::Conflicts(index, other));
            }
        }
        if let Some(setting) = attrs.requires.get() {
            let other = pair(cx, fields, index, &setting.key, &setting.value.0);
            if let Some(other) = other {
                groups.push(Group::Requires(index, other));
            }
        }
    }
    groups
}

/// The indexes of a group's fields, each a field a call may leave out, named once; `None`
/// when one is not (reported).
fn members(cx: &mut Ctxt, fields: &[Field], setting: &GroupSetting) -> Option<Vec<usize>> {
    let mut indexes = Vec::new();
    let mut valid = true;
    for (at, name) in setting.names.iter().enumerate() {
        if setting.names[..at].contains(name) {
            cx.error_spanned_by(name, format!("`{name}` is named twice in this group"));
            valid = false;
            continue;
        }
        match find(cx, fields, name, &setting.key) {
            Some(index) if may_be_left_out(cx, &fields[index], name, &setting.key) => {
                indexes.push(index)
            }
            _ => valid = false,
        }
    }
    valid.then_some(indexes)
}

/// `conflicts_with` or `requires` on the field at `index`, naming `other`: its index, when
/// both fields may be left out and they differ (reported otherwise).
fn pair(
    cx: &mut Ctxt,
    fields: &[Field],
    index: usize,
    key: &Ident,
    other: &Ident,
) -> Option<usize> {
    let this = &fields[index];
    if other == this.ident {
        cx.error_spanned_by(other, format!("`{key}` names another field, not this one"));
        return None;
    }
    let other_index = find(cx, fields, other, key)?;
    let both = may_be_left_out(cx, this, this.ident, key)
        & may_be_left_out(cx, &fields[other_index], other, key);
    both.then_some(other_index)
}

/// The index of the field `name`, reported with the name probably meant when there is none.
fn find(cx: &mut Ctxt, fields: &[Field], name: &Ident, key: &Ident) -> Option<usize> {
    let index = fields.iter().position(|field| field.ident == name);
    if index.is_none() {
        let names: Vec<String> = fields.iter().map(|field| field.ident.to_string()).collect();
        let written = name.to_string();
        let meant = did_you_mean::closest(&written, names.iter().map(String::as_str))
            .map(|meant| format!("; did you mean `{meant}`?"))
            .unwrap_or_default();
        cx.error_spanned_by(
            name,
            format!("no field named `{name}`: `{key}` names fields of this struct{meant}"),
        );
    }
    index
}

/// Whether a call may leave `field` out (an `Option` without a default), which a group needs of
/// each of its fields; reported on `name` where it is not.
fn may_be_left_out(cx: &mut Ctxt, field: &Field, name: &Ident, key: &Ident) -> bool {
    let optional = field.arg_type.is_some_and(|arg_type| arg_type.optional);
    let why = if field.attrs.flatten.get().is_some() {
        "is a flattened map, never left out"
    } else if field.attrs.default.get().is_some() {
        "has a default"
    } else if !optional {
        "is required"
    } else {
        return true;
    };
    cx.error_spanned_by(
        name,
        format!(
            "`{}` {why}, so the tool always sees it and `{key}` would always hold or always \
             break: make it an `Option` without a default",
            field.ident
        ),
    );
    false
}
