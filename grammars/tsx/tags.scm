; TSX / JSX additions to ../typescript/tags.scm (only valid for the TSX grammar).
; A closing tag names the component again (`</List>`): a site of its own, as the compiler counts it.
[(jsx_opening_element name: [(identifier) (member_expression)] @name)
 (jsx_closing_element name: [(identifier) (member_expression)] @name)] @reference.jsx
(jsx_self_closing_element name: [(identifier) (member_expression)] @name) @reference.jsx
(jsx_closing_element name: (_) @skip.read)
; Attributes: members of the component's props type.
(jsx_attribute (property_identifier) @name @reference.key)
