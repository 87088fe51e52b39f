; TypeScript / JavaScript: scopes and the names bound in them.
(statement_block) @local.scope
(function_declaration) @local.scope
(generator_function_declaration) @local.scope
(function_expression) @local.scope
(generator_function) @local.scope
(arrow_function) @local.scope
(method_definition) @local.scope
(class_declaration) @local.scope
(abstract_class_declaration) @local.scope
(interface_declaration) @local.scope
(type_alias_declaration) @local.scope
(for_statement) @local.scope
(for_in_statement) @local.scope
(catch_clause) @local.scope

(variable_declarator name: (identifier) @local.definition)
(variable_declarator name: [(object_pattern) (array_pattern)] @local.pattern)
(required_parameter pattern: (identifier) @local.definition)
(optional_parameter pattern: (identifier) @local.definition)
(required_parameter pattern: [(object_pattern) (array_pattern) (rest_pattern)] @local.pattern)
(optional_parameter pattern: [(object_pattern) (array_pattern)] @local.pattern)
(for_in_statement left: [(object_pattern) (array_pattern)] @local.pattern)
(function_expression name: (identifier) @local.definition)
(arrow_function parameter: (identifier) @local.definition)
(catch_clause parameter: (identifier) @local.definition)
(catch_clause parameter: [(object_pattern) (array_pattern)] @local.pattern)
(for_in_statement left: (identifier) @local.definition)
; A reassignment rebinds the name where it is declared (bound there, not in the block it is in).
(assignment_expression left: (identifier) @local.definition)
(type_parameter name: (type_identifier) @local.definition)
