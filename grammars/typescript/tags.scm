; TypeScript / JavaScript: definitions, references and imports (tags.scm conventions).
; Shared by the TypeScript and TSX grammars; JSX-only patterns live in ../tsx/tags.scm.

; ---- definitions -------------------------------------------------------------
(function_declaration name: (identifier) @name) @definition.function
(generator_function_declaration name: (identifier) @name) @definition.function
(function_signature name: (identifier) @name) @definition.function
(class_declaration name: (type_identifier) @name) @definition.class
(abstract_class_declaration name: (type_identifier) @name) @definition.class
(interface_declaration name: (type_identifier) @name) @definition.interface
(type_alias_declaration name: (type_identifier) @name) @definition.type
(enum_declaration name: (identifier) @name) @definition.enum
(method_definition name: [(property_identifier) (private_property_identifier) (string)] @name) @definition.method
(method_signature name: [(property_identifier) (private_property_identifier) (string)] @name) @definition.method
(abstract_method_signature name: [(property_identifier) (private_property_identifier) (string)] @name) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name value: [(arrow_function) (function_expression)]) @definition.method
(public_field_definition name: [(property_identifier) (private_property_identifier)] @name) @definition.property
; (`var f = a || function () {}`: a compiler's helper, `(this && this.__awaiter) || function …`.)
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)
  (binary_expression right: [(function_expression) (arrow_function)])]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(variable_declarator name: (identifier) @name value: (object [(method_definition) (pair value: [(arrow_function) (function_expression)])])) @definition.variable
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
(export_statement value: [(arrow_function) (function_expression) (class)] @definition.function)
; `export default <expression>` (not a function, class or name): the value `#default`.
(export_statement value: [(object) (array) (call_expression) (new_expression) (member_expression) (string) (number)
  (template_string) (binary_expression) (ternary_expression) (parenthesized_expression) (as_expression)
  (satisfies_expression) (await_expression)] @definition.constant)
; Enum members and namespaces.
(enum_body (property_identifier) @name @definition.constant)
(enum_assignment name: (property_identifier) @name) @definition.constant
(internal_module name: [(identifier) (nested_identifier)] @name) @definition.namespace
(module name: [(identifier) (nested_identifier)] @name) @definition.namespace
; CommonJS: `module.exports = function () {}` is the module's `default`; `exports.x = function
; () {}` and `module.exports.x = …` define `x`.
(expression_statement (assignment_expression left: (member_expression) @_lhs right: [(function_expression) (arrow_function)] @definition.function)
  (#eq? @_lhs "module.exports"))
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_o property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.function (#not-eq? @_o "module"))
(expression_statement (assignment_expression left: (member_expression object: (member_expression) @_o property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.function (#eq? @_o "module.exports"))
; Constructor functions: `F.prototype.m = function () {}` is a method of `F`, `F.m = function
; () {}` (above) a member of `F` (also of an object `const api = {}`) where the file defines `F`;
; `this.m = function () {}` in `F` a method of `F`.
(expression_statement (assignment_expression left: (member_expression object: (member_expression object: (identifier) @_c
  property: (property_identifier) @_p) property: (property_identifier) @name) right: [(function_expression) (arrow_function)])
  @definition.method (#eq? @_p "prototype"))
(expression_statement (assignment_expression left: (member_expression object: (this) property: (property_identifier) @name)
  right: [(function_expression) (arrow_function)]) @definition.method)
; `this.x = ...` in a method: a property of the class (where no field declares it). `C.x = ...`:
; a static member of `C` where the file defines the class or constructor function `C` at module
; level (extraction drops the others: `exports.x = 1`, `el.textContent = …`).
((assignment_expression left: (member_expression object: [(this) (identifier)] property: (property_identifier) @name)) @definition.property)

; ---- references --------------------------------------------------------------
(call_expression function: (_) @name) @reference.call
(new_expression constructor: (_) @name) @reference.new
(arguments [(identifier) (member_expression)] @name @reference.argument)
; Values stored in arrays and object literals (`{ middleware: [auth] }`, `{ start }`).
(array (identifier) @name @reference.argument)
(pair value: [(identifier) (member_expression)] @name @reference.argument)
(object (shorthand_property_identifier) @name @reference.argument)
; Values stored into a member: `exports.slugify = slugify`, `this.handler = onMessage`.
(assignment_expression left: (member_expression) right: [(identifier) (member_expression)] @name @reference.argument)
(decorator [(identifier) (member_expression)] @name @reference.decorator)
(class_heritage (extends_clause value: (_) @name @reference.inherits))
(implements_clause [(type_identifier) (nested_type_identifier)] @name @reference.implements)
(implements_clause (generic_type name: (_) @name @reference.implements))
(extends_type_clause type: [(type_identifier) (nested_type_identifier)] @name @reference.inherits)
(extends_type_clause type: (generic_type name: (_) @name @reference.inherits))
; Enum members (`Color.Red`): the object of a member access that is not a call.
(member_expression object: (identifier) @name @reference.member)
; Reads of values: every outermost name or member chain in an expression that nothing else
; claims (extraction keeps the ones bound outside the function: module values, imports).
(identifier) @name @reference.read
(member_expression) @name @reference.read
(member_expression object: (_) @skip.read)
(call_expression function: (_) @skip.read)
(new_expression constructor: (_) @skip.read)
(assignment_expression left: (_) @skip.read)
(augmented_assignment_expression left: (_) @skip.read)
(update_expression argument: (_) @skip.read)
(import_clause (identifier) @skip.read)
(import_specifier name: (_) @skip.read)
(import_specifier alias: (_) @skip.read)
; (`import x = require('./x')`: the name it binds.)
[(namespace_import (identifier) @skip.read) (import_require_clause (identifier) @skip.read)]
(export_specifier name: (_) @skip.read)
(export_specifier alias: (_) @skip.read)
(namespace_export (_) @skip.read)
(decorator (_) @skip.read)
(nested_type_identifier (identifier) @skip.read)
(type_query (_) @skip.read)
(nested_identifier (identifier) @skip.read)
(internal_module name: (_) @skip.read)
(module name: (_) @skip.read)
; Writes: assignments, compound assignments, `++`/`--` (extraction keeps those that reach
; outside the function).
(assignment_expression left: [(identifier) (member_expression)] @name @reference.write)
(augmented_assignment_expression left: [(identifier) (member_expression)] @name @reference.write)
(update_expression argument: [(identifier) (member_expression)] @name @reference.write)
; A type, and a value named in a type query (`type: typeof SET_SORT`, `ReturnType<typeof make>`).
[(type_identifier) @name (type_query (identifier) @name)] @reference.type
(nested_type_identifier) @name @reference.type
; Keys of object literals (a method's name too) and destructuring patterns: uses of the members of the type they
; are checked against (extraction writes the path through that type, when the file names it).
(pair key: (property_identifier) @name @reference.key)
(object [(shorthand_property_identifier) @name @reference.key (method_definition name: (property_identifier) @name @reference.key)])
(pair_pattern key: (property_identifier) @name @reference.key)
(object_pattern (shorthand_property_identifier_pattern) @name @reference.key)
(object_assignment_pattern left: (shorthand_property_identifier_pattern) @name @reference.key)

; Constructor parameter properties: `constructor(private readonly svc: UserService)`.
(required_parameter (accessibility_modifier) pattern: (identifier) @name) @definition.property
(required_parameter "readonly" pattern: (identifier) @name) @definition.property
; Interface members that are values: `interface Row { id: number }`.
(interface_declaration body: (_ (property_signature name: (property_identifier) @name) @definition.property))
; Members of object type aliases: `type Row = { id: number }`, `type R = Base & { id: number }`.
(type_alias_declaration value: (object_type (property_signature name: (property_identifier) @name) @definition.property))
(type_alias_declaration value: (intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.property)))
(type_alias_declaration value: (intersection_type (intersection_type (object_type (property_signature name: (property_identifier) @name) @definition.property))))

; ---- returned values (a function's obvious return type) ---------------------
; `return new Foo()`, `return make()`: the callee's instance or result; `return new this()` (a
; static factory): an instance of the class it is called on.
(return_statement [(new_expression constructor: [(identifier) (member_expression) (this)] @name)
  (call_expression function: [(identifier) (member_expression)] @name)] @return.call)
; `return this` (a fluent builder): an instance of the method's class; `return this.session`,
; `return Store.instance` (a singleton's getter): what the member holds.
(return_statement [(identifier) (this) (member_expression)] @name @return.call)

; ---- imports and exports -----------------------------------------------------
(import_statement) @import.statement
(export_statement) @export.statement
; CommonJS: `module.exports = x`, `module.exports = { a, b }`, `exports.a = a`.
((expression_statement (assignment_expression left: (member_expression) @_lhs) @export.statement)
  (#match? @_lhs "^(module[.])?exports([.]|$)"))
(call_expression function: (identifier) @_require (#eq? @_require "require") arguments: (arguments . (string) .)) @import.require
(call_expression function: (import) arguments: (arguments . (string))) @import.dynamic

; ---- CommonJS classes --------------------------------------------------------
; `module.exports = class Store {}` defines `Store` (an anonymous class, the module's
; `default`); `exports.X = class {}` and `module.exports.X = class {}` define `X`.
(expression_statement (assignment_expression left: (member_expression) @_lhs right: (class name: (type_identifier) @name) @definition.class)
  (#eq? @_lhs "module.exports"))
(expression_statement (assignment_expression left: (member_expression) @_lhs right: (class !name) @definition.class)
  (#eq? @_lhs "module.exports"))
(expression_statement (assignment_expression left: (member_expression object: (identifier) @_o property: (property_identifier) @name)
  right: (class) @definition.class) (#not-eq? @_o "module"))
(expression_statement (assignment_expression left: (member_expression object: (member_expression) @_o property: (property_identifier) @name)
  right: (class) @definition.class) (#eq? @_o "module.exports"))
; `exports = module.exports = createApplication` (express's own form): what `module.exports`
; is set to.
((expression_statement (assignment_expression left: (identifier) @_e right: (assignment_expression left: (member_expression) @_lhs))
  @export.statement) (#eq? @_e "exports") (#eq? @_lhs "module.exports"))
