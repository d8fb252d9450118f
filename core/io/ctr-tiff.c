/* placeholder: being written (owner: see tree notes) */
