; Python: definitions, references and imports (tags.scm conventions).
; Capture vocabulary: see ckg-core/src/lang.rs (CAPTURES); a test rejects unknown names.

; ---- definitions -------------------------------------------------------------
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(lambda) @definition.lambda
; Attributes: `self.x = ...` in methods, annotated fields in class bodies (`repo: Repo`).
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)) @definition.property
  (#eq? @_self "self"))
(class_definition body: (block (expression_statement (assignment left: (identifier) @name type: (type)) @definition.property)))

; ---- references --------------------------------------------------------------
(call function: (_) @name) @reference.call
(call arguments: (argument_list [(identifier) (attribute)] @name @reference.argument))
(call arguments: (argument_list (keyword_argument value: [(identifier) (attribute)] @name @reference.argument)))
; Values stored in lists and dicts (`handlers = {"a": outer}`).
(list (identifier) @name @reference.argument)
(dictionary (pair value: [(identifier) (attribute)] @name @reference.argument))
(decorator [(identifier) (attribute)] @name @reference.decorator)
; Attribute reads run property getters (`rect.area`); extraction keeps the outermost ones.
(attribute) @name @reference.read
(attribute object: (attribute) @skip.read)
(call function: (attribute) @skip.read)
(assignment left: (attribute) @skip.read)
(augmented_assignment left: (attribute) @skip.read)
(decorator (attribute) @skip.read)
; Monkey-patching: rebinding a member from outside (`mod.func = fake`, `setattr(C, "m", f)`);
; resolution keeps the ones that rebind a function, method or class.
(assignment left: (attribute object: (_) @_obj) @name @reference.patch (#not-eq? @_obj "self"))
((call function: (identifier) @_f arguments: (argument_list . (_) . (string))) @name @reference.patch (#eq? @_f "setattr"))
(class_definition superclasses: (argument_list [(identifier) (attribute)] @name @reference.inherits))
(type [(identifier) (attribute)] @name @reference.type)
(type (subscript value: [(identifier) (attribute)] @name @reference.type))
(type (generic_type (identifier) @name @reference.type))

; ---- returned values (a function's obvious return type) ---------------------
(return_statement (call function: [(identifier) (attribute)] @name) @return.call)
(return_statement (identifier) @name @return.call)
(return_statement (lambda) @name @return.call)

; ---- imports and exports -----------------------------------------------------
(import_statement) @import.statement
(import_from_statement) @import.statement
(module (expression_statement (assignment left: (identifier) @_all (#eq? @_all "__all__")) @export.statement))
