; Python: scopes and the names bound in them.
(function_definition) @local.scope
(lambda) @local.scope
(class_definition) @local.scope
(list_comprehension) @local.scope
(set_comprehension) @local.scope
(dictionary_comprehension) @local.scope
(generator_expression) @local.scope

(parameters (identifier) @local.definition)
(parameters (typed_parameter (identifier) @local.definition))
(parameters (default_parameter name: (identifier) @local.definition))
(parameters (typed_default_parameter name: (identifier) @local.definition))
(parameters (list_splat_pattern (identifier) @local.definition))
(parameters (dictionary_splat_pattern (identifier) @local.definition))
(lambda_parameters (identifier) @local.definition)
(lambda_parameters (default_parameter name: (identifier) @local.definition))
(assignment left: (identifier) @local.definition)
(assignment left: [(pattern_list) (tuple_pattern) (list_pattern)] @local.pattern)
(augmented_assignment left: (identifier) @local.definition)
(for_statement left: (identifier) @local.definition)
(for_statement left: [(pattern_list) (tuple_pattern)] @local.pattern)
(for_in_clause left: (identifier) @local.definition)
(for_in_clause left: [(pattern_list) (tuple_pattern)] @local.pattern)
(named_expression name: (identifier) @local.definition)
(as_pattern alias: (as_pattern_target (identifier) @local.definition))
(global_statement (identifier) @local.global)
(nonlocal_statement (identifier) @local.global)
