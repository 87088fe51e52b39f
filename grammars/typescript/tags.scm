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
(variable_declarator name: (identifier) @name value: [(arrow_function) (function_expression) (generator_function)]) @definition.function
(variable_declarator name: (identifier) @name value: (class)) @definition.class
(variable_declarator name: (identifier) @name value: (object [(method_definition) (pair value: [(arrow_function) (function_expression)])])) @definition.variable
(pair key: (property_identifier) @name value: [(arrow_function) (function_expression)]) @definition.method
(export_statement value: [(arrow_function) (function_expression) (class)] @definition.function)

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
(type_identifier) @name @reference.type
(nested_type_identifier) @name @reference.type

; Constructor parameter properties: `constructor(private readonly svc: UserService)`.
(required_parameter (accessibility_modifier) pattern: (identifier) @name) @definition.property

; ---- returned values (a function's obvious return type) ---------------------
(return_statement (new_expression constructor: [(identifier) (member_expression)] @name) @return.call)

; ---- imports and exports -----------------------------------------------------
(import_statement) @import.statement
(export_statement) @export.statement
; CommonJS: `module.exports = x`, `module.exports = { a, b }`, `exports.a = a`.
((expression_statement (assignment_expression left: (member_expression) @_lhs) @export.statement)
  (#match? @_lhs "^(module[.])?exports([.]|$)"))
(call_expression function: (identifier) @_require (#eq? @_require "require") arguments: (arguments . (string) .)) @import.require
(call_expression function: (import) arguments: (arguments . (string))) @import.dynamic
