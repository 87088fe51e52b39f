; Python: definitions, references and imports (tags.scm conventions).
; Capture vocabulary: see ckg-core/src/lang.rs (CAPTURES); a test rejects unknown names.

; ---- definitions -------------------------------------------------------------
(class_definition name: (identifier) @name) @definition.class
(function_definition name: (identifier) @name) @definition.function
(lambda) @definition.lambda
; Attributes: `self.x = ...` in methods, `cls.x = ...` in classmethods. (Class-body assignments
; and module-level names are value symbols made from the local definitions of the class and
; module scopes.)
((assignment left: (attribute object: (identifier) @_self attribute: (identifier) @name)) @definition.property
  (#any-of? @_self "self" "cls"))
((pattern_list (attribute object: (identifier) @_self attribute: (identifier) @name) @definition.property) (#eq? @_self "self"))
((tuple_pattern (attribute object: (identifier) @_self attribute: (identifier) @name) @definition.property) (#eq? @_self "self"))

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
; Reads of names: extraction keeps the ones bound outside the function (module values,
; imports, class attributes in the class body).
(identifier) @name @reference.read
(attribute object: (_) @skip.read)
(attribute attribute: (identifier) @skip.read)
(call function: (_) @skip.read)
(assignment left: (_) @skip.read)
(augmented_assignment left: (_) @skip.read)
(decorator (_) @skip.read)
(keyword_argument name: (identifier) @skip.read)
(dotted_name (identifier) @skip.read)
(aliased_import alias: (identifier) @skip.read)
(global_statement (identifier) @skip.read)
(nonlocal_statement (identifier) @skip.read)
(type (identifier) @skip.read)
(type (attribute) @skip.read)
(type (subscript value: (_) @skip.read))
(type (generic_type (identifier) @skip.read))
; Writes: compound assignments, `self.x = ...` after the defining one, names declared
; `global` and assigned (extraction keeps those that reach outside the function).
(augmented_assignment left: [(identifier) (attribute)] @name @reference.write)
((assignment left: (attribute object: (identifier) @_s) @name @reference.write) (#eq? @_s "self"))
((pattern_list (attribute object: (identifier) @_s) @name @reference.write) (#eq? @_s "self"))
((tuple_pattern (attribute object: (identifier) @_s) @name @reference.write) (#eq? @_s "self"))
(assignment left: (identifier) @name @reference.write)
; Monkey-patching: rebinding a member from outside (`mod.func = fake`, `setattr(C, "m", f)`);
; resolution keeps the ones that rebind a function, method or class.
(assignment left: (attribute object: (_) @_obj) @name @reference.patch (#not-eq? @_obj "self"))
((call function: (identifier) @_f arguments: (argument_list . (_) . (string))) @name @reference.patch (#eq? @_f "setattr"))
(class_definition superclasses: (argument_list [(identifier) (attribute)] @name @reference.inherits))
; Context managers: `with ctx:` / `with self.lock() as l:` run `__enter__` and `__exit__`
; (extraction takes the manager out of an `as` pattern).
(with_item value: (_) @name @reference.with)
; What a loop or a comprehension iterates over: its class's `__iter__` / `__next__` run there.
(for_statement right: [(identifier) (attribute) (call)] @name @reference.iter)
(for_in_clause right: [(identifier) (attribute) (call)] @name @reference.iter)
; (`async with` / `async for` are told apart by extraction.) What `await` waits on: `__await__`.
(await [(identifier) (attribute) (call)] @name @reference.await)
(type [(identifier) (attribute)] @name @reference.type)
(type (subscript value: [(identifier) (attribute)] @name @reference.type))
(type (generic_type (identifier) @name @reference.type))

; ---- returned values (a function's obvious return type) ---------------------
; (A callee that is itself a call: `return type(self)(...)`; extraction keeps only that one.)
(return_statement (call function: [(identifier) (attribute) (call)] @name) @return.call)
; `return self._conn` (a property's getter), `return cls._instance`: what the attribute holds.
(return_statement [(identifier) (attribute)] @name @return.call)
(return_statement (lambda) @name @return.call)
(return_statement [(dictionary) (list) (tuple) (expression_list)] @name @return.call)

; ---- imports and exports -----------------------------------------------------
(import_statement) @import.statement
(import_from_statement) @import.statement
(module (expression_statement (assignment left: (identifier) @_all (#eq? @_all "__all__")) @export.statement))
